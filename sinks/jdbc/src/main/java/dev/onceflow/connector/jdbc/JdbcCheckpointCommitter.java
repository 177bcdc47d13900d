package dev.onceflow.connector.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionId;
import java.sql.Connection;
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
    private final CommitMarkers markers;

    JdbcCheckpointCommitter(SinkContext context, HikariDataSource pool, JdbcSettings settings,
            RecordBinding<?> binding) {
        this.context = context;
        this.pool = pool;
        this.settings = settings;
        this.binding = binding;
        this.markers = new CommitMarkers(settings);
    }

    @Override
    public void open() throws SQLException {
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(true);
            markers.createTable(connection);
            settings.prepareTable(connection, binding);
            int forgotten = markers.forgetAbandoned(connection, context);
            if (forgotten > 0) {
                LOG.info("forgot {} checkpoint markers of subtask {} of {}/{} after checkpoint {}: that history was "
                        + "abandoned by restoring an earlier state or starting afresh", forgotten,
                        context.subtaskIndex(), context.jobName(), context.sinkUid(),
                        context.restoredCheckpointId().isPresent()
                                ? Long.toString(context.restoredCheckpointId().getAsLong()) : "none");
            }
        }
    }

    @Override
    public boolean isCheckpointCommitted(int subtaskIndex, long checkpointId) throws SQLException {
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(true);
            return markers.exists(connection, marker(context, subtaskIndex, checkpointId));
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
        return new CommitMarkers(settings).insert(connection, marker(context, subtaskIndex, checkpointId));
    }

    private static TransactionId marker(SinkContext context, int subtaskIndex, long checkpointId) {
        return new TransactionId(context.jobName(), context.sinkUid(), subtaskIndex, checkpointId);
    }

    /** Closes the committer's pool. */
    @Override
    public void close() {
        pool.close();
    }
}
