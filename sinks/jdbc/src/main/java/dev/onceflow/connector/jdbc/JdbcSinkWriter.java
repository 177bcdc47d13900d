package dev.onceflow.connector.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.nio.charset.StandardCharsets;
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
    private final JdbcSettings settings;
    /** Transactions written to and not yet prepared, by gid; each holds a connection. */
    private final Map<String, OpenTransaction> open = new HashMap<>();

    JdbcSinkWriter(SinkContext context, HikariDataSource pool, JdbcSettings settings) {
        this.context = context;
        this.pool = pool;
        this.settings = settings;
    }

    /** Fails fast when the server cannot prepare enough transactions, then creates the table if missing. */
    void start() throws SQLException {
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
            int maxPrepared;
            try (ResultSet result = statement.executeQuery("SHOW max_prepared_transactions")) {
                result.next();
                maxPrepared = Integer.parseInt(result.getString(1).trim());
            }
            int needed = requiredPreparedTransactions(context);
            if (maxPrepared < needed) {
                throw new IllegalStateException("PostgreSQL max_prepared_transactions is " + maxPrepared
                        + "; set it to at least " + needed + " in postgresql.conf and restart the server "
                        + "(exactly-once mode prepares up to parallelism " + context.parallelism()
                        + " x (max concurrent checkpoints " + context.maxConcurrentCheckpoints()
                        + " + 1) transactions), or use mode write-ahead, which needs none");
            }
            settings.createTableIfMissing(statement);
        }
    }

    /** Prepared transactions this sink may hold at once: each writer's pre-committed ones plus its open one. */
    static int requiredPreparedTransactions(SinkContext context) {
        return context.parallelism() * context.maxOpenTransactionsPerWriter();
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
        txn.rows.add(record);
    }

    /** Flushes and prepares; 2PC-2: the prepared transaction outlives this connection and this process. */
    @Override
    public JdbcTransaction preCommit(JdbcTransaction transaction) throws SQLException {
        OpenTransaction txn = open.remove(transaction.gid());
        if (txn == null) {
            return transaction.withRows(0);
        }
        try (txn) {
            txn.rows.flush();
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
            return transaction.withRows(txn.rows.rows());
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

    /** One transaction being written: its connection and the rows not sent yet. */
    private final class OpenTransaction implements AutoCloseable {

        final Connection connection;
        final RowWriter rows;

        OpenTransaction(Connection connection) throws SQLException {
            this.connection = connection;
            try {
                connection.setAutoCommit(false);
            } catch (SQLException e) {
                connection.close();
                throw e;
            }
            this.rows = new RowWriter(connection, settings, false);
        }

        @Override
        public void close() throws SQLException {
            try {
                rows.close();
            } finally {
                connection.close();
            }
        }
    }
}
