package dev.onceflow.connector.jdbc;

import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Marker rows in the committer table, one per (job, sink uid, subtask, checkpoint id) whose rows
 * reached the sink's table. The write-ahead mode inserts one with each segment (WAL-2); the
 * exactly-once mode inserts one inside each prepared transaction, so the marker commits or
 * vanishes with the rows, and a gid that is no longer prepared is known to be committed only if
 * its marker is there (rule 2PC-9).
 */
final class CommitMarkers {

    /**
     * Markers the exactly-once mode keeps per subtask: committing checkpoint n deletes that
     * subtask's markers before {@code n - KEPT_CHECKPOINTS}. A restore hands back handles of a few
     * checkpoints before the restored one, never thousands, so their markers are still there.
     */
    static final long KEPT_CHECKPOINTS = 1000;

    private final SqlDialect dialect;
    private final String committerTable;
    private final String quotedTable;

    CommitMarkers(JdbcSettings settings) {
        this.dialect = settings.dialect();
        this.committerTable = settings.committerTable();
        this.quotedTable = dialect.quote(committerTable);
    }

    /** Creates the committer table if missing; safe while other subtasks do the same. */
    void createTable(Connection connection) throws SQLException {
        dialect.createIfMissing(connection, committerTable, dialect.createCommitterTable(committerTable));
    }

    /**
     * Inserts the marker of {@code id} into the connection's current transaction.
     *
     * @return whether it was new
     */
    boolean insert(Connection connection, TransactionId id) throws SQLException {
        return dialect.insertMarker(connection, committerTable, id.jobName(), id.sinkUid(), id.subtask(),
                id.checkpointId());
    }

    /** Whether the marker of {@code id} is committed. */
    boolean exists(Connection connection, TransactionId id) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT 1 FROM " + quotedTable
                + " WHERE job = ? AND sink = ? AND subtask = ? AND checkpoint_id = ?")) {
            bind(query, id);
            try (ResultSet result = query.executeQuery()) {
                return result.next();
            }
        }
    }

    /**
     * Whether {@code id}'s marker may have been deleted by {@link #prune}: a marker of its subtask
     * at least {@link #KEPT_CHECKPOINTS} checkpoints later exists.
     */
    boolean mayHaveBeenPruned(Connection connection, TransactionId id) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT 1 FROM " + quotedTable
                + " WHERE job = ? AND sink = ? AND subtask = ? AND checkpoint_id >= ?")) {
            query.setMaxRows(1);
            bind(query, new TransactionId(id.jobName(), id.sinkUid(), id.subtask(),
                    id.checkpointId() + KEPT_CHECKPOINTS));
            try (ResultSet result = query.executeQuery()) {
                return result.next();
            }
        }
    }

    /** After {@code committed} committed: deletes its subtask's markers older than {@link #KEPT_CHECKPOINTS}. */
    void prune(Connection connection, TransactionId committed) throws SQLException {
        if (committed.checkpointId() <= KEPT_CHECKPOINTS) {
            return;
        }
        deleteSelected(connection, committed.jobName(), committed.sinkUid(),
                "job = ? AND sink = ? AND subtask = ? AND checkpoint_id < ?", query -> bind(query,
                new TransactionId(committed.jobName(), committed.sinkUid(), committed.subtask(),
                        committed.checkpointId() - KEPT_CHECKPOINTS)));
    }

    /**
     * Deletes the markers of checkpoints after the restored one (all of them on a fresh start) of
     * the subtasks {@code context}'s writer owns: that history was abandoned, and a new checkpoint
     * reusing one of its ids must not find a marker it did not write.
     *
     * @return how many were deleted
     */
    int forgetAbandoned(Connection connection, SinkContext context) throws SQLException {
        // Every subtask index j with j % parallelism == this subtask: its own, and those a scale-down retired.
        return deleteSelected(connection, context.jobName(), context.sinkUid(),
                "job = ? AND sink = ? AND subtask % ? = ? AND checkpoint_id > ?", query -> {
            query.setString(1, context.jobName());
            query.setString(2, context.sinkUid());
            query.setInt(3, context.parallelism());
            query.setInt(4, context.subtaskIndex());
            query.setLong(5, context.restoredCheckpointId().orElse(Long.MIN_VALUE));
        });
    }

    /**
     * Deletes the committed markers {@code where} selects, each by its whole key. A range DELETE
     * would wait on InnoDB for the marker row that a prepared XA transaction holds locked (its
     * next-key lock reaches past the range) until that transaction commits, which can be never;
     * a plain SELECT does not see uncommitted markers and takes no locks.
     */
    private int deleteSelected(Connection connection, String job, String sink, String where, Binder binder)
            throws SQLException {
        List<long[]> keys = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement("SELECT subtask, checkpoint_id FROM "
                + quotedTable + " WHERE " + where)) {
            binder.bind(query);
            try (ResultSet result = query.executeQuery()) {
                while (result.next()) {
                    keys.add(new long[] {result.getInt(1), result.getLong(2)});
                }
            }
        }
        if (keys.isEmpty()) {
            return 0;
        }
        int deleted = 0;
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + quotedTable
                + " WHERE job = ? AND sink = ? AND subtask = ? AND checkpoint_id = ?")) {
            for (long[] key : keys) {
                bind(delete, new TransactionId(job, sink, (int) key[0], key[1]));
                deleted += delete.executeUpdate();
            }
        }
        return deleted;
    }

    /** Sets the parameters of a statement. */
    @FunctionalInterface
    private interface Binder {
        void bind(PreparedStatement statement) throws SQLException;
    }

    private static void bind(PreparedStatement statement, TransactionId id) throws SQLException {
        statement.setString(1, id.jobName());
        statement.setString(2, id.sinkUid());
        statement.setInt(3, id.subtask());
        statement.setLong(4, id.checkpointId());
    }
}
