package dev.onceflow.connector.jdbc;

import com.zaxxer.hikari.HikariDataSource;
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
public final class JdbcWriteAheadSink<T> implements GenericWriteAheadSink<T> {

    private final JdbcSettings settings;
    private final RecordBinding<T> binding;
    private final SimpleVersionedSerializer<T> serializer;

    JdbcWriteAheadSink(JdbcSettings settings, RecordBinding<T> binding, SimpleVersionedSerializer<T> serializer) {
        this.settings = settings;
        this.binding = binding;
        this.serializer = serializer;
    }

    @Override
    public WriteAheadWriter<T> createWriter(SinkContext context) {
        return new Writer<>(context, settings.openPool(context, "wal"), settings, binding);
    }

    /** The committer has a pool of its own (one connection in use at a time), closed with it. */
    @Override
    public CheckpointCommitter createCommitter(SinkContext context) {
        return new JdbcCheckpointCommitter(context, settings.openPool(context, "wal-committer"), settings, binding);
    }

    @Override
    public SimpleVersionedSerializer<T> recordSerializer() {
        return serializer;
    }

    @Override
    public String toString() {
        return "JdbcWriteAheadSink[write-ahead, committerTable=" + settings.committerTable() + ", " + settings + ", " + binding + "]";
    }

    /** Writes each completed segment with its marker in one transaction. */
    private static final class Writer<T> implements WriteAheadWriter<T> {

        private static final Logger LOG = LoggerFactory.getLogger(Writer.class);

        private final SinkContext context;
        private final HikariDataSource pool;
        private final JdbcSettings settings;
        private final RecordBinding<T> binding;

        Writer(SinkContext context, HikariDataSource pool, JdbcSettings settings, RecordBinding<T> binding) {
            this.context = context;
            this.pool = pool;
            this.settings = settings;
            this.binding = binding;
        }

        @Override
        public boolean sendValues(Iterable<T> values, long checkpointId, long timestamp) throws SQLException {
            return sendValues(values, context.subtaskIndex(), checkpointId, timestamp);
        }

        /**
         * WAL-3: rows and marker in one transaction. When the marker is already there (another
         * process wrote this segment first, which only a zombie attempt can do), the rows are
         * rolled back and the segment counts as sent.
         */
        @Override
        public boolean sendValues(Iterable<T> values, int subtaskIndex, long checkpointId, long timestamp)
                throws SQLException {
            try (Connection connection = pool.getConnection()) {
                connection.setAutoCommit(false);
                try (RowWriter<T> rows = new RowWriter<>(connection, settings, binding, false)) {
                    // The marker first: a concurrent writer of the same segment waits here, not after its rows.
                    if (!JdbcCheckpointCommitter.insertMarker(connection, settings, context, subtaskIndex,
                            checkpointId)) {
                        connection.rollback();
                        LOG.warn("segment of subtask {} for checkpoint {} was already written by another attempt; "
                                + "skipped", subtaskIndex, checkpointId);
                        return true;
                    }
                    for (T record : values) {
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
