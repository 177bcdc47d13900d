package dev.onceflow.connector.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.SinkContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Remembers which write-ahead segments reached the table, one marker row per (job, sink uid,
 * subtask, checkpoint id) in a committer table (WAL-2). {@link JdbcWriteAheadSink}'s writer inserts
 * the marker in the same transaction as the rows, so "sent" and "remembered" cannot disagree
 * (WAL-3); {@link #commitCheckpoint} then finds it there.
 *
 * <p>Markers of checkpoints after the restored one (all of them on a fresh start) belong to a
 * timeline the job abandoned; {@link #open} deletes those of the subtasks this writer owns, or a
 * new checkpoint reusing the id would be skipped as already sent.
 */
final class JdbcCheckpointCommitter implements CheckpointCommitter {

    /** The committer table used unless configured otherwise. */
    static final String DEFAULT_TABLE = "onceflow_checkpoints";

    private static final Logger LOG = LoggerFactory.getLogger(JdbcCheckpointCommitter.class);

    private final SinkContext context;
    private final HikariDataSource pool;
    private final JdbcSettings settings;
    private final RecordBinding<?> binding;
    private final String table;

    JdbcCheckpointCommitter(SinkContext context, HikariDataSource pool, JdbcSettings settings,
            RecordBinding<?> binding) {
        this.context = context;
        this.pool = pool;
        this.settings = settings;
        this.binding = binding;
        this.table = settings.dialect().quote(settings.committerTable());
    }

    @Override
    public void open() throws SQLException {
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(true);
            settings.dialect().createIfMissing(connection, settings.committerTable(),
                    settings.dialect().createCommitterTable(settings.committerTable()));
            settings.prepareTable(connection, binding);
            forgetAbandonedCheckpoints(connection);
        }
    }

    private void forgetAbandonedCheckpoints(Connection connection) throws SQLException {
        long after = context.restoredCheckpointId().orElse(Long.MIN_VALUE);
        // Every subtask index j with j % parallelism == this subtask: its own, and those a scale-down retired.
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + table
                + " WHERE job = ? AND sink = ? AND subtask % ? = ? AND checkpoint_id > ?")) {
            delete.setString(1, context.jobName());
            delete.setString(2, context.sinkUid());
            delete.setInt(3, context.parallelism());
            delete.setInt(4, context.subtaskIndex());
            delete.setLong(5, after);
            int forgotten = delete.executeUpdate();
            if (forgotten > 0) {
                LOG.info("forgot {} checkpoint markers of subtask {} of {}/{} after checkpoint {}: that history was "
                        + "abandoned by restoring an earlier state or starting afresh", forgotten,
                        context.subtaskIndex(), context.jobName(), context.sinkUid(),
                        context.restoredCheckpointId().isPresent() ? Long.toString(after) : "none");
            }
        }
    }

    @Override
    public boolean isCheckpointCommitted(int subtaskIndex, long checkpointId) throws SQLException {
        try (Connection connection = pool.getConnection(); PreparedStatement query = connection.prepareStatement(
                "SELECT 1 FROM " + table + " WHERE job = ? AND sink = ? AND subtask = ? AND checkpoint_id = ?")) {
            connection.setAutoCommit(true);
            bindMarker(query, context, subtaskIndex, checkpointId);
            try (ResultSet result = query.executeQuery()) {
                return result.next();
            }
        }
    }

    /** Idempotent; after the writer's atomic send the marker is normally there already. */
    @Override
    public void commitCheckpoint(int subtaskIndex, long checkpointId) throws SQLException {
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(true);
            insertMarker(connection, settings, context, subtaskIndex, checkpointId);
        }
    }

    /**
     * Inserts the marker of a segment into the connection's current transaction.
     *
     * @return whether it was new; {@code false} means another transaction wrote this segment first
     */
    static boolean insertMarker(Connection connection, JdbcSettings settings, SinkContext context, int subtaskIndex,
            long checkpointId) throws SQLException {
        return settings.dialect().insertMarker(connection, settings.committerTable(), context.jobName(),
                context.sinkUid(), subtaskIndex, checkpointId);
    }

    private static void bindMarker(PreparedStatement statement, SinkContext context, int subtaskIndex,
            long checkpointId) throws SQLException {
        statement.setString(1, context.jobName());
        statement.setString(2, context.sinkUid());
        statement.setInt(3, subtaskIndex);
        statement.setLong(4, checkpointId);
    }

    /** Closes the committer's pool. */
    @Override
    public void close() {
        pool.close();
    }
}
