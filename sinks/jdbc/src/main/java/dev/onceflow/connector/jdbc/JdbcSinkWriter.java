package dev.onceflow.connector.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceflow.spi.sink.PreCommitted;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionId;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one database transaction per checkpoint and subtask and commits it in two phases:
 * {@code PREPARE TRANSACTION} / {@code COMMIT PREPARED} on PostgreSQL, XA on MariaDB.
 *
 * <p>Why this is exactly-once: rows become visible only by the commit, which runs after the
 * checkpoint holding the handle completed; preparing at the barrier makes them durable and
 * detaches them from the connection, so any later process can commit them by gid; gids are
 * deterministic, so a later attempt finds what a dead one prepared and never knew to checkpoint,
 * and rolls it back ({@link #abortLingering}). Each prepared transaction also holds a marker row
 * in the committer table ({@link CommitMarkers}), the evidence that tells a gid committed before
 * from one rolled back behind the sink's back (rule 2PC-9).
 *
 * <p>The last batch and the {@code PREPARE} run on a thread of the writer's own
 * ({@link #preCommitAsync}): the task thread goes on with the next checkpoint's rows on another
 * connection, and the runtime writes the checkpoint's state while the database prepares.
 */
final class JdbcSinkWriter<T> implements TransactionalWriter<T, JdbcTransaction> {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcSinkWriter.class);

    private final SinkContext context;
    private final HikariDataSource pool;
    private final JdbcSettings settings;
    private final RecordBinding<T> binding;
    private final SqlDialect dialect;
    private final CommitMarkers markers;
    /** Transactions written to and not yet prepared, by gid; each holds a connection. */
    private final Map<String, OpenTransaction> open = new HashMap<>();
    /** Flushes and prepares pre-committed transactions, one at a time, off the task thread. */
    private final ExecutorService prepareThread;

    JdbcSinkWriter(SinkContext context, HikariDataSource pool, JdbcSettings settings, RecordBinding<T> binding) {
        this.context = context;
        this.pool = pool;
        this.settings = settings;
        this.binding = binding;
        this.dialect = settings.dialect();
        this.markers = new CommitMarkers(settings);
        this.prepareThread = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "onceflow-jdbc-prepare-" + context.sinkUid() + "-" + context.subtaskIndex());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Fails fast when the server cannot prepare enough transactions, then creates the table if
     * missing (and allowed) and checks it has the columns, and creates the committer table of the
     * commit markers if missing.
     */
    void start() throws SQLException {
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(true);
            dialect.checkPreparedCapacity(connection, context);
            settings.prepareTable(connection, binding);
            markers.createTable(connection);
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
        if (gid.getBytes(StandardCharsets.UTF_8).length > dialect.maxGidBytes()) {
            throw new IllegalStateException("transaction id '" + gid + "' is longer than " + dialect.name() + "'s "
                    + dialect.maxGidBytes() + " bytes; shorten the job name or the sink uid");
        }
        return new JdbcTransaction(gid, 0);
    }

    @Override
    public void write(JdbcTransaction transaction, T record) throws SQLException {
        OpenTransaction txn = open.get(transaction.gid());
        if (txn == null) {
            txn = new OpenTransaction(transaction.gid(), pool.getConnection());
            open.put(transaction.gid(), txn);
        }
        txn.rows.add(record);
    }

    /** Waits for {@link #preCommitAsync}'s stage; the runtime calls preCommitAsync itself. */
    @Override
    public JdbcTransaction preCommit(JdbcTransaction transaction) throws Exception {
        return preCommitAsync(transaction).awaitDurable();
    }

    /**
     * 2PC-2 once the stage completes: the prepared transaction outlives its connection and this
     * process. The handle counts the rows still to be sent; the prepare thread sends them and
     * prepares, and only it touches the transaction's connection from here on.
     */
    @Override
    public PreCommitted<JdbcTransaction> preCommitAsync(JdbcTransaction transaction) {
        OpenTransaction txn = open.remove(transaction.gid());
        if (txn == null) {
            return PreCommitted.durable(transaction.withRows(0));
        }
        JdbcTransaction handle = transaction.withRows(txn.rows.rowsIncludingPending());
        CompletableFuture<Void> durable = CompletableFuture.runAsync(() -> {
            boolean prepared = false;
            try {
                txn.rows.flush();
                insertMarker(txn.connection, transaction.gid());
                dialect.prepare(txn.connection, transaction.gid());
                prepared = true;
            } catch (SQLException e) {
                throw new CompletionException(e);
            } finally {
                try {
                    txn.release(prepared);
                } catch (SQLException e) {
                    throw new CompletionException(e);
                }
            }
        }, prepareThread);
        return new PreCommitted<>(handle, durable);
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
     * Rule 2PC-9: the transaction's commit evidence, committed or rolled back with its rows. A
     * marker that exists already is left from another job or an abandoned history that
     * abortLingering did not clear, and would make a loss of this transaction read as a commit.
     */
    private void insertMarker(Connection connection, String gid) throws SQLException {
        TransactionId id = TransactionId.parse(gid).orElseThrow();
        if (!markers.insert(connection, id)) {
            throw new IllegalStateException("commit marker of " + gid + " already exists in committer table "
                    + settings.committerTable() + ": is another job using the same job name and sink uid on this "
                    + "database?");
        }
    }

    /**
     * 2PC-3, 2PC-4, 2PC-5, 2PC-9. A gid that is no longer prepared was committed before only if
     * its marker row committed with it; without the marker its rows were rolled back by someone
     * else (another job's cleanup, an administrator) and are lost: that fails, naming the gid.
     */
    private void commitPrepared(JdbcTransaction transaction) throws SQLException {
        if (transaction.rows() == 0) {
            return;
        }
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(true);
            Optional<TransactionId> id = TransactionId.parse(transaction.gid());
            if (dialect.commitPrepared(connection, transaction.gid())) {
                if (id.isPresent()) {
                    markers.prune(connection, id.get());
                }
                return;
            }
            if (id.isEmpty()) {
                // Prepared before commit markers existed (a checkpoint taken by an older version).
                LOG.warn("prepared transaction {} ({} rows) is no longer prepared; it was prepared without a commit "
                        + "marker, so it is taken as committed before without evidence", transaction.gid(),
                        transaction.rows());
            } else if (markers.exists(connection, id.get())) {
                LOG.info("prepared transaction {} ({} rows) is no longer prepared: its commit marker shows it was "
                        + "committed before", transaction.gid(), transaction.rows());
            } else if (markers.mayHaveBeenPruned(connection, id.get())) {
                LOG.warn("prepared transaction {} ({} rows) is no longer prepared and its commit marker was deleted "
                        + "as older than {} checkpoints; it is taken as committed before", transaction.gid(),
                        transaction.rows(), CommitMarkers.KEPT_CHECKPOINTS);
            } else {
                throw new IllegalStateException("LOST: prepared transaction " + transaction.gid() + " ("
                        + transaction.rows() + " rows) is no longer prepared and its commit marker is not in "
                        + settings.committerTable() + ": it was rolled back by someone else, not committed, and its "
                        + transaction.rows() + " rows are not in " + settings.table() + " and will not be replayed "
                        + "(rule 2PC-9). Look for another job or sink using the same names on this database, or a "
                        + "manual ROLLBACK PREPARED / XA ROLLBACK.");
            }
        }
    }

    @Override
    public void abort(JdbcTransaction transaction) throws SQLException {
        OpenTransaction txn = open.remove(transaction.gid());
        if (txn != null) {
            txn.release(false);
        }
    }

    /** The open transaction of the restored checkpoint may have been prepared by a dead attempt just before it died. */
    @Override
    public void recoverAndAbort(JdbcTransaction transaction) throws SQLException {
        abort(transaction);
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(true);
            if (dialect.preparedTransactions(connection, transaction.gid()).contains(transaction.gid())) {
                dialect.rollbackPrepared(connection, transaction.gid());
            }
        }
    }

    /**
     * 2PC-7: rolls back the prepared transactions of this subtask and of the former subtasks it
     * owns, for checkpoints after the restored one (all of them on a fresh start). Their records
     * will be replayed by the source. 2PC-9: a gid is this sink's only if it decodes to exactly
     * this job and sink uid; gids prepared before the current encoding are matched against the
     * exact old form of this job's and sink's names. Then forgets the commit markers of that
     * abandoned history, so a checkpoint reusing one of its ids starts without one.
     */
    @Override
    public void abortLingering() throws SQLException {
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(true);
            List<String> lingering = new ArrayList<>();
            String legacyPrefix = context.jobName() + "-" + context.sinkUid() + "-";
            for (String prefix : List.of(context.transactionIdPrefix(), legacyPrefix)) {
                for (String gid : dialect.preparedTransactions(connection, prefix)) {
                    if (context.ownTransactionId(gid).filter(this::isLingering).isPresent()) {
                        lingering.add(gid);
                    }
                }
            }
            for (String gid : lingering) {
                dialect.rollbackPrepared(connection, gid);
                LOG.info("rolled back lingering prepared transaction {}", gid);
            }
            markers.forgetAbandoned(connection, context);
        }
    }

    /** Whether {@code id}, one of this sink's, names a transaction this writer must abort. */
    private boolean isLingering(TransactionId id) {
        return context.ownsFormerSubtask(id.subtask()) && (context.restoredCheckpointId().isEmpty()
                || id.checkpointId() > context.restoredCheckpointId().getAsLong());
    }

    /** Rolls back open transactions (the runtime replays them) and closes the pool. */
    @Override
    public void close() throws SQLException {
        SQLException failure = null;
        // A prepare still running belongs to a checkpoint this attempt will not complete (it is
        // acknowledged only after it): if it finishes, the next attempt's abortLingering rolls it back.
        prepareThread.shutdownNow();
        try {
            prepareThread.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (OpenTransaction txn : open.values()) {
            try {
                txn.release(false);
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
    private final class OpenTransaction {

        final String gid;
        final Connection connection;
        final RowWriter<T> rows;

        OpenTransaction(String gid, Connection connection) throws SQLException {
            this.gid = gid;
            this.connection = connection;
            try {
                dialect.begin(connection, gid);
            } catch (SQLException e) {
                pool.evictConnection(connection);
                throw e;
            }
            this.rows = new RowWriter<>(connection, settings, binding, false,
                    () -> dialect.rollbackOpen(connection, gid));
        }

        /**
         * Gives the connection back. An unprepared transaction is rolled back first; a connection
         * whose state is unknown (a failed rollback) or that the dialect says must not outlive its
         * prepared transaction is discarded instead of pooled.
         */
        void release(boolean prepared) throws SQLException {
            boolean discard = prepared && dialect.discardConnectionAfterPrepare();
            try {
                rows.close();
                if (!prepared) {
                    dialect.rollbackOpen(connection, gid);
                }
            } catch (SQLException e) {
                discard = true;
                if (prepared) {
                    throw e;
                }
                LOG.debug("rolling back open transaction {} failed; discarding its connection", gid, e);
            } finally {
                if (discard) {
                    pool.evictConnection(connection);
                } else {
                    connection.close();
                }
            }
        }
    }
}
