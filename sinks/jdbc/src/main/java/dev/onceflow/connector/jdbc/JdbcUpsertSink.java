package dev.onceflow.connector.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceflow.spi.sink.IdempotentSink;
import dev.onceflow.spi.sink.IdempotentWriter;
import dev.onceflow.spi.sink.SinkContext;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Upserts rows by key (an event's id, a row's primary key: {@code INSERT ... ON CONFLICT (key) DO
 * UPDATE}), committing each batch and
 * what is buffered at every barrier: at-least-once delivery whose final table state is exactly-once, because a replayed
 * record rewrites its own row with the same values (IDEM-1, IDEM-2). Needs no prepared
 * transactions. Rows of a checkpoint that later fails stay visible until the replay rewrites
 * them, and a replay may briefly show older counts: readers that need to see only checkpointed
 * state use {@link JdbcSink} or {@link JdbcWriteAheadSink}.
 */
public final class JdbcUpsertSink<T> implements IdempotentSink<T> {

    private final JdbcSettings settings;
    private final RecordBinding<T> binding;

    JdbcUpsertSink(JdbcSettings settings, RecordBinding<T> binding) {
        this.settings = settings;
        this.binding = binding;
    }

    @Override
    public IdempotentWriter<T> createWriter(SinkContext context) throws Exception {
        HikariDataSource pool = settings.openPool(context, "upsert");
        try {
            Connection connection = pool.getConnection();
            try {
                connection.setAutoCommit(true);
                settings.prepareTable(connection, binding);
                connection.setAutoCommit(false);
                return new Writer<>(pool, connection, new RowWriter<>(connection, settings, binding, true));
            } catch (SQLException | RuntimeException e) {
                connection.close();
                throw e;
            }
        } catch (Exception | Error e) {
            pool.close();
            throw e;
        }
    }

    @Override
    public String toString() {
        return "JdbcUpsertSink[idempotent, " + settings + ", " + binding + "]";
    }

    /**
     * One subtask's writer: a connection whose transaction is committed at each full batch and each
     * barrier. Small transactions keep the rows locked briefly; a batch the database rolls back as
     * a deadlock victim is retried (an upsert is safe to repeat).
     */
    private static final class Writer<T> implements IdempotentWriter<T> {

        private final HikariDataSource pool;
        private final Connection connection;
        private final RowWriter<T> rows;

        Writer(HikariDataSource pool, Connection connection, RowWriter<T> rows) {
            this.pool = pool;
            this.connection = connection;
            this.rows = rows;
        }

        @Override
        public void write(T record) throws SQLException {
            rows.add(record);
        }

        /** IDEM-2: sends what is buffered and commits, so the barrier covers only durable rows. */
        @Override
        public void flush() throws SQLException {
            rows.flush();
            connection.commit();
        }

        /** Rolls back what was not flushed (the job replays it) and closes the pool. */
        @Override
        public void close() throws SQLException {
            try (pool; connection; rows) {
                connection.rollback();
            }
        }
    }
}
