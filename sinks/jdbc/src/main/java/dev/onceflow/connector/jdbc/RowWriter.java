package dev.onceflow.connector.jdbc;

import dev.onceflow.spi.row.RowKind;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/**
 * Sends rows into the current transaction of one connection, a batch at a time, by COPY
 * (PostgreSQL), batched INSERT or batched upsert and delete (CHG-4). Never commits: the caller owns the transaction. Not thread-safe; used
 * by one thread at a time: the writer's task thread while the transaction is open, then its
 * prepare thread, which sends the last batch.
 *
 * <p>A batch that fails is retried row by row, in a local transaction rolled back afterwards,
 * after the caller's transaction was aborted (the failure has doomed it anyway), to name the
 * record the database refused.
 */
final class RowWriter<T> implements AutoCloseable {

    private final Connection connection;
    private final JdbcSettings settings;
    private final RecordBinding<T> binding;
    private final TransactionAbort abort;
    /** Whether rows are upserted and deleted by key (CHG-4) rather than appended. */
    private final boolean upsert;
    /** Whether each batch is committed on its own and retried after a deadlock (the idempotent mode). */
    private final boolean commitEachBatch;
    /** Upsert batches retried after a deadlock before the job fails. */
    private static final int MAX_UPSERT_ATTEMPTS = 5;

    private final String statementSql;
    private final String deleteSql;
    private final List<T> pending = new ArrayList<>();
    private PreparedStatement statement;
    private PreparedStatement delete;
    private long rows;

    /** Ends the caller's transaction without committing, after a failed batch. */
    @FunctionalInterface
    interface TransactionAbort {
        void abort() throws SQLException;
    }

    /**
     * @param connection a connection inside the transaction the rows join
     * @param binding the records' columns and values
     * @param idempotent overwrite rows with the same key instead of inserting (INSERT ... ON
     *     CONFLICT), each batch committed on its own, in key order, and retried when the database
     *     rolls it back as a deadlock victim; without it, rows are upserted in the caller's
     *     transaction if the settings' write mode is upsert, else appended
     * @param abort how to end that transaction when a batch fails
     */
    RowWriter(Connection connection, JdbcSettings settings, RecordBinding<T> binding, boolean idempotent,
            TransactionAbort abort) {
        this.connection = connection;
        this.settings = settings;
        this.binding = binding;
        this.upsert = idempotent || settings.writeMode() == WriteMode.UPSERT;
        this.commitEachBatch = idempotent;
        this.abort = abort;
        SqlDialect dialect = settings.dialect();
        this.statementSql = upsert ? dialect.upsert(settings.table(), binding.columns(), binding.keyColumns())
                : dialect.insert(settings.table(), binding.columns());
        this.deleteSql = upsert ? dialect.delete(settings.table(), binding.keyColumns()) : null;
    }

    /** For a connection in a local transaction (auto-commit off). */
    RowWriter(Connection connection, JdbcSettings settings, RecordBinding<T> binding, boolean idempotent) {
        this(connection, settings, binding, idempotent, connection::rollback);
    }

    /**
     * Buffers one row, sending the batch when it reaches the batch size.
     *
     * @throws IllegalStateException for a row that is not an insert when rows are appended: an
     *     update or delete appended as a new row would be silently wrong (CHG-3)
     */
    void add(T record) throws SQLException {
        if (!upsert && binding.kind(record) != RowKind.INSERT) {
            throw new IllegalStateException("sink 'jdbc' appends rows to table " + settings.table() + " and was given a "
                    + binding.kind(record) + " row, " + binding.describe(record) + "; set write-mode: upsert to apply "
                    + "updates and deletes by primary key");
        }
        pending.add(record);
        if (pending.size() >= settings.batchSize()) {
            flush();
        }
    }

    /** Sends every buffered row into the transaction. */
    void flush() throws SQLException {
        if (pending.isEmpty()) {
            return;
        }
        List<T> batch = upsert ? lastPerKey(pending) : pending;
        for (int attempt = 1; ; attempt++) {
            try {
                if (upsert) {
                    executeChanges(batch);
                } else if (settings.writeMethod() == WriteMethod.COPY && settings.dialect().supportsCopy()) {
                    copy(batch);
                } else {
                    executeBatch(batch);
                }
                if (commitEachBatch) {
                    connection.commit();
                }
                break;
            } catch (SQLException e) {
                if (!commitEachBatch || attempt >= MAX_UPSERT_ATTEMPTS || !isTransient(e)) {
                    throw badRow(e, batch);
                }
                // Two subtasks' upserts can deadlock on InnoDB's gap locks (measured on MariaDB): the
                // database rolled this batch's transaction back, and an upsert is safe to repeat.
                connection.rollback();
                backOff(attempt);
            }
        }
        rows += pending.size();
        pending.clear();
    }

    /** SQLSTATE class 40: the database rolled the transaction back (deadlock, serialization failure). */
    private static boolean isTransient(SQLException e) {
        for (SQLException link = e; link != null; link = link.getNextException()) {
            if (link.getSQLState() != null && link.getSQLState().startsWith("40")) {
                return true;
            }
            if (link.getCause() instanceof SQLException cause && cause.getSQLState() != null
                    && cause.getSQLState().startsWith("40")) {
                return true;
            }
        }
        return false;
    }

    private static void backOff(int attempt) throws SQLException {
        try {
            Thread.sleep(10L << Math.min(attempt, 6));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while retrying a batch after a deadlock", "40001", e);
        }
    }

    /** Rows sent so far (flushed), counting repeated keys of an upsert batch once per record. */
    long rows() {
        return rows;
    }

    /** Rows sent plus rows still waiting for their batch: what {@link #flush()} will leave in {@link #rows()}. */
    long rowsIncludingPending() {
        return rows + pending.size();
    }

    boolean hasPending() {
        return !pending.isEmpty();
    }

    private void executeBatch(List<T> batch) throws SQLException {
        if (statement == null) {
            statement = connection.prepareStatement(statementSql);
        }
        for (T record : batch) {
            binding.bind(statement, record);
            statement.addBatch();
        }
        statement.executeBatch();
    }

    /**
     * Upserts the batch's inserts and updates, then deletes its deletes. {@code batch} holds each
     * key once, its last change ({@link #lastPerKey}), so no key has a change in both statements
     * and the order between them cannot undo a later change of a key (CHG-5).
     */
    private void executeChanges(List<T> batch) throws SQLException {
        boolean upserts = false;
        boolean deletes = false;
        for (T record : batch) {
            if (binding.kind(record) == RowKind.DELETE) {
                if (delete == null) {
                    delete = connection.prepareStatement(deleteSql);
                }
                binding.bindKey(delete, record);
                delete.addBatch();
                deletes = true;
            } else {
                if (statement == null) {
                    statement = connection.prepareStatement(statementSql);
                }
                binding.bind(statement, record);
                statement.addBatch();
                upserts = true;
            }
        }
        if (upserts) {
            statement.executeBatch();
        }
        if (deletes) {
            delete.executeBatch();
        }
    }

    private void copy(List<T> batch) throws SQLException {
        StringBuilder text = new StringBuilder(batch.size() * 48);
        for (T record : batch) {
            binding.appendCopy(text, record);
        }
        CopyManager copy = connection.unwrap(PGConnection.class).getCopyAPI();
        try {
            copy.copyIn("COPY " + settings.dialect().quote(settings.table()) + " ("
                    + settings.dialect().columnList(binding.columns()) + ") FROM STDIN",
                    new ByteArrayInputStream(text.toString().getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new SQLException("COPY into " + settings.table() + " failed: " + e.getMessage(), "08006", e);
        }
    }

    /**
     * One multi-row upsert must not touch a row twice (PostgreSQL refuses it): keep each key's last
     * record, which also keeps each key's changes in order (CHG-5). An {@code UPDATE_BEFORE} is
     * left out: its {@code UPDATE_AFTER} says what the row becomes (CHG-4). In key order, so that
     * concurrent writers lock rows in the same order.
     */
    private List<T> lastPerKey(List<T> records) {
        Map<List<Comparable<?>>, T> last = new java.util.TreeMap<>(RecordBinding.KEY_ORDER);
        for (T record : records) {
            if (binding.kind(record) != RowKind.UPDATE_BEFORE) {
                last.put(binding.key(record), record);
            }
        }
        return new ArrayList<>(last.values());
    }

    /**
     * Names the record that failed. The transaction is lost anyway (the job fails and replays it),
     * so it is rolled back and the batch is retried row by row to find the culprit.
     */
    private SQLException badRow(SQLException batchFailure, List<T> batch) {
        SQLException cause = batchFailure instanceof BatchUpdateException && batchFailure.getNextException() != null
                ? batchFailure.getNextException() : batchFailure;
        String culprit = null;
        String message = cause.getMessage();
        try {
            abort.abort();
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try (PreparedStatement single = connection.prepareStatement(statementSql);
                    PreparedStatement singleDelete = upsert ? connection.prepareStatement(deleteSql) : null) {
                for (int i = 0; i < batch.size(); i++) {
                    boolean isDelete = binding.kind(batch.get(i)) == RowKind.DELETE;
                    PreparedStatement one = isDelete ? singleDelete : single;
                    if (isDelete) {
                        binding.bindKey(one, batch.get(i));
                    } else {
                        binding.bind(one, batch.get(i));
                    }
                    try {
                        one.executeUpdate();
                    } catch (SQLException e) {
                        culprit = binding.describe(batch.get(i)) + " (record " + (i + 1) + " of a batch of "
                                + batch.size() + ")";
                        message = e.getMessage();
                        break;
                    }
                }
            } finally {
                connection.rollback();
                connection.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            batchFailure.addSuppressed(e);
        }
        String what = culprit != null ? culprit
                : "one of a batch of " + batch.size() + " records from " + binding.describe(batch.get(0)) + " to "
                        + binding.describe(batch.get(batch.size() - 1)) + " (or an earlier record of the transaction)";
        return new SQLException("cannot write " + what + " into table " + settings.table() + ": " + message,
                cause.getSQLState(), batchFailure);
    }

    /** Closes the statement; the connection and its transaction stay the caller's. */
    @Override
    public void close() throws SQLException {
        pending.clear();
        try (PreparedStatement closedLast = delete) {
            if (statement != null) {
                statement.close();
            }
        }
    }
}
