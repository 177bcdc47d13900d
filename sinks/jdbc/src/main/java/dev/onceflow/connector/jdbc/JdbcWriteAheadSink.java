package dev.onceflow.connector.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventSerializer;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.GenericWriteAheadSink;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.WriteAheadWriter;
import java.sql.Connection;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly-once rows without prepared transactions: the rows of checkpoint n are kept in the
 * checkpoint (the write-ahead log) and, once n completes, written in one local transaction
 * together with n's marker in the committer table. The rows and the marker commit atomically,
 * so a replay after any crash either finds the marker and skips the segment, or finds neither and
 * writes both (WAL-3) — unlike a write-ahead sink whose committer writes separately, which
 * duplicates a segment when the process dies between the two.
 *
 * <p>Costs: rows become visible after their checkpoint completes plus one transaction, and the
 * checkpoint stores the rows themselves, so keep checkpoints frequent.
 */
public final class JdbcWriteAheadSink implements GenericWriteAheadSink<Event> {

    private final JdbcSettings settings;

    JdbcWriteAheadSink(JdbcSettings settings) {
        this.settings = settings;
    }

    @Override
    public WriteAheadWriter<Event> createWriter(SinkContext context) {
        return new Writer(context, settings.openPool(context, "wal"), settings);
    }

    /** The committer has a pool of its own (one connection in use at a time), closed with it. */
    @Override
    public CheckpointCommitter createCommitter(SinkContext context) {
        return new JdbcCheckpointCommitter(context, settings.openPool(context, "wal-committer"), settings);
    }

    @Override
    public SimpleVersionedSerializer<Event> recordSerializer() {
        return EventSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "JdbcWriteAheadSink[write-ahead, committerTable=" + settings.committerTable() + ", " + settings + "]";
    }

    /** Writes each completed segment with its marker in one transaction. */
    private static final class Writer implements WriteAheadWriter<Event> {

        private static final Logger LOG = LoggerFactory.getLogger(Writer.class);

        private final SinkContext context;
        private final HikariDataSource pool;
        private final JdbcSettings settings;

        Writer(SinkContext context, HikariDataSource pool, JdbcSettings settings) {
            this.context = context;
            this.pool = pool;
            this.settings = settings;
        }

        @Override
        public boolean sendValues(Iterable<Event> values, long checkpointId, long timestamp) throws SQLException {
            return sendValues(values, context.subtaskIndex(), checkpointId, timestamp);
        }

        /**
         * WAL-3: rows and marker in one transaction. When the marker is already there (another
         * process wrote this segment first, which only a zombie attempt can do), the rows are
         * rolled back and the segment counts as sent.
         */
        @Override
        public boolean sendValues(Iterable<Event> values, int subtaskIndex, long checkpointId, long timestamp)
                throws SQLException {
            try (Connection connection = pool.getConnection()) {
                connection.setAutoCommit(false);
                try (RowWriter rows = new RowWriter(connection, settings, false)) {
                    // The marker first: a concurrent writer of the same segment waits here, not after its rows.
                    if (!JdbcCheckpointCommitter.insertMarker(connection, settings, context, subtaskIndex,
                            checkpointId)) {
                        connection.rollback();
                        LOG.warn("segment of subtask {} for checkpoint {} was already written by another attempt; "
                                + "skipped", subtaskIndex, checkpointId);
                        return true;
                    }
                    for (Event record : values) {
                        rows.add(record);
                    }
                    rows.flush();
                    connection.commit();
                    return true;
                } catch (SQLException | RuntimeException e) {
                    connection.rollback();
                    throw e;
                }
            }
        }

        @Override
        public void close() {
            pool.close();
        }
    }
}
