package dev.onceflow.connector.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.nio.charset.StandardCharsets;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one PostgreSQL transaction per checkpoint and subtask and commits it in two phases.
 *
 * <p>Why this is exactly-once: rows become visible only by {@code COMMIT PREPARED}, which runs
 * after the checkpoint holding the handle completed; {@code PREPARE TRANSACTION} at the barrier
 * makes them durable and detaches them from the connection, so any later process can commit them
 * by gid; gids are deterministic, so a later attempt finds what a dead one prepared and never knew
 * to checkpoint, and rolls it back ({@link #abortLingering}).
 */
final class JdbcSinkWriter implements TransactionalWriter<Event, JdbcTransaction> {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcSinkWriter.class);

    /** PostgreSQL's GIDSIZE is 200 bytes including the terminating NUL. */
    private static final int MAX_GID_BYTES = 199;
    private static final Pattern GID_SUFFIX = Pattern.compile("(\\d+)-(\\d+)");

    private final SinkContext context;
    private final HikariDataSource pool;
    private final String table;
    private final String insertSql;
    private final int batchSize;
    /** Transactions written to and not yet prepared, by gid; each holds a connection. */
    private final Map<String, OpenTransaction> open = new HashMap<>();

    JdbcSinkWriter(SinkContext context, HikariDataSource pool, String table, int batchSize) {
        this.context = context;
        this.pool = pool;
        this.table = table;
        this.insertSql = "INSERT INTO " + PostgresSyntax.identifier(table)
                + " (id, key, count, payload) VALUES (?, ?, ?, ?)";
        this.batchSize = batchSize;
    }

    /** Fails fast when the server cannot prepare transactions, then creates the table if missing. */
    void start() throws SQLException {
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
            int maxPrepared;
            try (ResultSet result = statement.executeQuery("SHOW max_prepared_transactions")) {
                result.next();
                maxPrepared = Integer.parseInt(result.getString(1).trim());
            }
            int needed = context.parallelism() * 2;
            if (maxPrepared == 0) {
                throw new IllegalStateException("PostgreSQL max_prepared_transactions is 0; set it to at least "
                        + needed + " in postgresql.conf (exactly-once mode prepares one transaction per subtask "
                        + "and checkpoint)");
            }
            if (maxPrepared < needed) {
                LOG.warn("PostgreSQL max_prepared_transactions is {}; with parallelism {} set it to at least {}, "
                        + "or pre-commits may fail (SQLSTATE 53200)", maxPrepared, context.parallelism(), needed);
            }
            createTableIfMissing(statement);
        }
    }

    private void createTableIfMissing(Statement statement) throws SQLException {
        try {
            statement.execute("CREATE TABLE IF NOT EXISTS " + PostgresSyntax.identifier(table)
                    + " (id text PRIMARY KEY, key text, count bigint, payload text)");
        } catch (SQLException e) {
            // IF NOT EXISTS is not atomic: subtasks starting together can race; the loser finds the table made.
            if (!PostgresSyntax.UNIQUE_VIOLATION.equals(e.getSQLState())
                    && !PostgresSyntax.DUPLICATE_TABLE.equals(e.getSQLState())) {
                throw e;
            }
        }
    }

    /** Only names the transaction: the connection is taken on the first write, so empty checkpoints prepare nothing. */
    @Override
    public JdbcTransaction beginTransaction(long checkpointId) {
        String gid = context.transactionId(context.subtaskIndex(), checkpointId);
        if (gid.getBytes(StandardCharsets.UTF_8).length > MAX_GID_BYTES) {
            throw new IllegalStateException("transaction id '" + gid + "' is longer than PostgreSQL's "
                    + MAX_GID_BYTES + " bytes; shorten the job name or the sink uid");
        }
        return new JdbcTransaction(gid, 0);
    }

    @Override
    public void write(JdbcTransaction transaction, Event record) throws SQLException {
        OpenTransaction txn = open.get(transaction.gid());
        if (txn == null) {
            txn = new OpenTransaction(pool.getConnection());
            open.put(transaction.gid(), txn);
        }
        txn.add(record);
        if (txn.pending.size() >= batchSize) {
            txn.flush();
        }
    }

    /** Flushes and prepares; 2PC-2: the prepared transaction outlives this connection and this process. */
    @Override
    public JdbcTransaction preCommit(JdbcTransaction transaction) throws SQLException {
        OpenTransaction txn = open.remove(transaction.gid());
        if (txn == null) {
            return transaction.withRows(0);
        }
        try (txn) {
            txn.flush();
            try (Statement statement = txn.connection.createStatement()) {
                statement.execute("PREPARE TRANSACTION " + PostgresSyntax.literal(transaction.gid()));
            } catch (SQLException e) {
                if (PostgresSyntax.DUPLICATE_GID.equals(e.getSQLState())) {
                    throw new IllegalStateException("prepared transaction " + transaction.gid() + " already exists; "
                            + "abortLingering should have rolled it back: is another job or sink using the same "
                            + "job name and sink uid on this database?", e);
                }
                throw e;
            }
            return transaction.withRows(txn.rows);
        }
    }

    @Override
    public void commit(JdbcTransaction transaction) throws SQLException {
        commitPrepared(transaction);
    }

    @Override
    public void recoverAndCommit(JdbcTransaction transaction) throws SQLException {
        commitPrepared(transaction);
    }

    /**
     * 2PC-3, 2PC-4, 2PC-5. An unknown gid means committed: the runtime commits only handles of
     * completed checkpoints, and only this sink (by abortLingering, for later checkpoints) rolls
     * prepared transactions back.
     */
    private void commitPrepared(JdbcTransaction transaction) throws SQLException {
        if (transaction.rows() == 0) {
            return;
        }
        // COMMIT PREPARED cannot run inside a transaction block (25001): use an autocommit connection.
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(true);
            statement.execute("COMMIT PREPARED " + PostgresSyntax.literal(transaction.gid()));
        } catch (SQLException e) {
            if (!PostgresSyntax.UNKNOWN_GID.equals(e.getSQLState())) {
                throw e;
            }
            LOG.info("prepared transaction {} ({} rows) is no longer prepared: it was committed before",
                    transaction.gid(), transaction.rows());
        }
    }

    @Override
    public void abort(JdbcTransaction transaction) throws SQLException {
        OpenTransaction txn = open.remove(transaction.gid());
        if (txn != null) {
            try (txn) {
                txn.connection.rollback();
            }
        }
    }

    /** The open transaction of the restored checkpoint may have been prepared by a dead attempt just before it died. */
    @Override
    public void recoverAndAbort(JdbcTransaction transaction) throws SQLException {
        abort(transaction);
        try (Connection connection = pool.getConnection();
                PreparedStatement query = connection.prepareStatement(
                        "SELECT 1 FROM pg_prepared_xacts WHERE database = current_database() AND gid = ?")) {
            connection.setAutoCommit(true);
            query.setString(1, transaction.gid());
            boolean prepared;
            try (ResultSet result = query.executeQuery()) {
                prepared = result.next();
            }
            if (prepared) {
                rollbackPrepared(connection, transaction.gid());
            }
        }
    }

    /**
     * 2PC-7: rolls back the prepared transactions of this subtask and of the former subtasks it
     * owns, for checkpoints after the restored one (all of them on a fresh start). Their records
     * will be replayed by the source.
     */
    @Override
    public void abortLingering() throws SQLException {
        String prefix = context.jobName() + "-" + context.sinkUid() + "-";
        List<String> lingering = new ArrayList<>();
        try (Connection connection = pool.getConnection();
                PreparedStatement query = connection.prepareStatement("SELECT gid FROM pg_prepared_xacts "
                        + "WHERE database = current_database() AND gid LIKE ? ESCAPE '\\'")) {
            connection.setAutoCommit(true);
            query.setString(1, PostgresSyntax.startsWithPattern(prefix));
            try (ResultSet result = query.executeQuery()) {
                while (result.next()) {
                    String gid = result.getString(1);
                    if (isLingering(gid.substring(prefix.length()))) {
                        lingering.add(gid);
                    }
                }
            }
            for (String gid : lingering) {
                rollbackPrepared(connection, gid);
                LOG.info("rolled back lingering prepared transaction {}", gid);
            }
        }
    }

    /** Whether the gid suffix {@code <subtask>-<checkpointId>} names a transaction this writer must abort. */
    private boolean isLingering(String suffix) {
        // Another sink whose uid starts with this one's followed by '-' matches the LIKE, but not this pattern.
        Matcher matcher = GID_SUFFIX.matcher(suffix);
        if (!matcher.matches()) {
            return false;
        }
        int subtask;
        long checkpointId;
        try {
            subtask = Integer.parseInt(matcher.group(1));
            checkpointId = Long.parseLong(matcher.group(2));
        } catch (NumberFormatException e) {
            return false;
        }
        return context.ownsFormerSubtask(subtask)
                && (context.restoredCheckpointId().isEmpty() || checkpointId > context.restoredCheckpointId().getAsLong());
    }

    private static void rollbackPrepared(Connection autocommitConnection, String gid) throws SQLException {
        try (Statement statement = autocommitConnection.createStatement()) {
            statement.execute("ROLLBACK PREPARED " + PostgresSyntax.literal(gid));
        } catch (SQLException e) {
            if (!PostgresSyntax.UNKNOWN_GID.equals(e.getSQLState())) {
                throw e;
            }
        }
    }

    /** Returns open connections to the pool (the server discards their transactions) and closes the pool. */
    @Override
    public void close() throws SQLException {
        SQLException failure = null;
        for (OpenTransaction txn : open.values()) {
            try {
                txn.close();
            } catch (SQLException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        open.clear();
        pool.close();
        if (failure != null) {
            throw failure;
        }
    }

    /** One transaction being written: its connection, insert statement and unsent rows. */
    private final class OpenTransaction implements AutoCloseable {

        final Connection connection;
        final PreparedStatement insert;
        final List<Event> pending = new ArrayList<>();
        long rows;

        OpenTransaction(Connection connection) throws SQLException {
            this.connection = connection;
            try {
                connection.setAutoCommit(false);
                this.insert = connection.prepareStatement(insertSql);
            } catch (SQLException e) {
                connection.close();
                throw e;
            }
        }

        void add(Event record) throws SQLException {
            insert.setString(1, record.id());
            insert.setString(2, record.key());
            insert.setLong(3, record.count());
            insert.setString(4, record.payload());
            insert.addBatch();
            pending.add(record);
        }

        void flush() throws SQLException {
            if (pending.isEmpty()) {
                return;
            }
            try {
                insert.executeBatch();
            } catch (SQLException e) {
                throw badRow(e);
            }
            rows += pending.size();
            pending.clear();
        }

        /**
         * Names the record that failed. The transaction is lost anyway (the job fails and replays
         * it), so it is rolled back and the batch is retried row by row to find the culprit.
         */
        private SQLException badRow(SQLException batchFailure) {
            SQLException cause = batchFailure instanceof BatchUpdateException && batchFailure.getNextException() != null
                    ? batchFailure.getNextException() : batchFailure;
            String culprit = null;
            String message = cause.getMessage();
            try {
                connection.rollback();
                try (PreparedStatement single = connection.prepareStatement(insertSql)) {
                    for (Event record : pending) {
                        single.setString(1, record.id());
                        single.setString(2, record.key());
                        single.setLong(3, record.count());
                        single.setString(4, record.payload());
                        try {
                            single.executeUpdate();
                        } catch (SQLException e) {
                            culprit = record.id();
                            message = e.getMessage();
                            break;
                        }
                    }
                }
                connection.rollback();
            } catch (SQLException e) {
                batchFailure.addSuppressed(e);
            }
            String what = culprit != null ? "record id '" + culprit + "'"
                    : "one of " + pending.size() + " records with ids '" + pending.get(0).id() + "' to '"
                            + pending.get(pending.size() - 1).id() + "' (or an earlier record of the transaction)";
            return new SQLException("cannot insert " + what + " into table " + table + ": " + message,
                    cause.getSQLState(), batchFailure);
        }

        @Override
        public void close() throws SQLException {
            try {
                insert.close();
            } finally {
                connection.close();
            }
        }
    }
}
