package dev.onceflow.connector.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.Sink;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Exactly-once rows in a PostgreSQL or MariaDB table: one transaction per checkpoint and subtask,
 * prepared at the barrier ({@code PREPARE TRANSACTION}; {@code XA END} + {@code XA PREPARE}) and
 * committed when the checkpoint completes ({@code COMMIT PREPARED}; {@code XA COMMIT}). Prepared
 * transactions survive the client's death and server restarts, so a later attempt can finish or
 * discard them by gid alone.
 *
 * <pre>{@code
 * JdbcSink sink = JdbcSink.builder("jdbc:postgresql://db:5432/app", "events").user("app").password(secret).build();
 * Sink<Event> upserts = JdbcSink.builder(url, "events").build(JdbcMode.IDEMPOTENT);
 * }</pre>
 *
 * <p>A PostgreSQL server must allow prepared transactions: {@code max_prepared_transactions} at
 * least parallelism x (max concurrent checkpoints + 1). Writers check it at start. Immutable; holds
 * settings only, and never shows the password (not in {@link #toString()}, logs or exception
 * messages). The other modes are {@link JdbcWriteAheadSink} and {@link JdbcUpsertSink}.
 */
public final class JdbcSink implements TwoPhaseCommitSink<Event, JdbcTransaction> {

    private final JdbcSettings settings;

    JdbcSink(JdbcSettings settings) {
        this.settings = settings;
    }

    /** A builder for the database at {@code url} ({@code jdbc:postgresql://...} or {@code jdbc:mariadb://...}) and table {@code table}. */
    public static Builder builder(String url, String table) {
        return new Builder(url, table);
    }

    static boolean isSupportedUrl(String url) {
        return SqlDialect.forUrl(url).isPresent();
    }

    static boolean isValidTableName(String table) {
        return Columns.isValidIdentifier(table);
    }

    /** Connects: opens the subtask's pool, checks prepared transactions are enabled, creates the table. */
    @Override
    public TransactionalWriter<Event, JdbcTransaction> createWriter(SinkContext context) throws Exception {
        HikariDataSource pool = settings.openPool(context, "2pc");
        try {
            JdbcSinkWriter writer = new JdbcSinkWriter(context, pool, settings);
            writer.start();
            return writer;
        } catch (Exception | Error e) {
            pool.close();
            throw e;
        }
    }

    @Override
    public SimpleVersionedSerializer<JdbcTransaction> transactionSerializer() {
        return JdbcTransactionSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "JdbcSink[exactly-once, " + settings + "]";
    }

    /** Builds a JDBC sink in any of its {@linkplain JdbcMode modes}. */
    public static final class Builder {

        private final String url;
        private final String table;
        private String user;
        private String password;
        private Columns columns = Columns.DEFAULT;
        private int batchSize = 1000;
        private int poolSize = 4;
        private WriteMethod writeMethod = WriteMethod.COPY;
        private Duration transactionTimeout;
        private String committerTable = JdbcCheckpointCommitter.DEFAULT_TABLE;

        private Builder(String url, String table) {
            this.url = Objects.requireNonNull(url, "url");
            this.table = Objects.requireNonNull(table, "table");
            if (!isSupportedUrl(url)) {
                throw new IllegalArgumentException("url must be a PostgreSQL or MariaDB JDBC URL such as "
                        + SqlDialect.SUPPORTED_URLS);
            }
            if (!isValidTableName(table)) {
                throw new IllegalArgumentException("table name must be 1 to " + Columns.MAX_IDENTIFIER_BYTES
                        + " bytes without NUL characters");
            }
        }

        public Builder user(String user) {
            this.user = Objects.requireNonNull(user, "user");
            return this;
        }

        public Builder password(String password) {
            this.password = Objects.requireNonNull(password, "password");
            return this;
        }

        /** Which columns the event's fields go to; {@link Columns#DEFAULT} by default. */
        public Builder columns(Columns columns) {
            this.columns = Objects.requireNonNull(columns, "columns");
            return this;
        }

        /** Rows sent in one batch (one COPY or one multi-row INSERT); 1000 by default. */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1) {
                throw new IllegalArgumentException("batch size must be at least 1, was " + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /** Maximum connections of each subtask's pool; 4 by default. */
        public Builder poolSize(int poolSize) {
            if (poolSize < 1) {
                throw new IllegalArgumentException("pool size must be at least 1, was " + poolSize);
            }
            this.poolSize = poolSize;
            return this;
        }

        /** COPY (default; PostgreSQL only, MariaDB always inserts) or batched INSERT; upserts always INSERT. */
        public Builder writeMethod(WriteMethod writeMethod) {
            this.writeMethod = Objects.requireNonNull(writeMethod, "writeMethod");
            return this;
        }

        /**
         * The server ends a session that stays idle inside an open transaction for longer
         * ({@code idle_in_transaction_session_timeout}); a hung writer then cannot hold locks
         * forever. Off by default: an idle stream would also trip it, failing and restarting the job.
         */
        public Builder transactionTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("transaction timeout must be positive, was " + timeout);
            }
            this.transactionTimeout = timeout;
            return this;
        }

        /** Table of the write-ahead mode's checkpoint markers; {@code onceflow_checkpoints} by default. */
        public Builder committerTable(String committerTable) {
            if (!isValidTableName(committerTable)) {
                throw new IllegalArgumentException("committer table name must be 1 to " + Columns.MAX_IDENTIFIER_BYTES
                        + " bytes without NUL characters");
            }
            this.committerTable = committerTable;
            return this;
        }

        private JdbcSettings settings() {
            if (committerTable.equals(table)) {
                throw new IllegalArgumentException("the committer table must differ from the sink's table " + table);
            }
            return new JdbcSettings(SqlDialect.forUrl(url).orElseThrow(), url, table, user, password, columns, batchSize, poolSize, writeMethod,
                    Optional.ofNullable(transactionTimeout), committerTable);
        }

        /**
         * The exactly-once (two-phase commit) sink.
         *
         * @throws IllegalArgumentException with a pool of one connection: the open transaction
         *     holds one from its first row to its prepare, and the commit of the previous
         *     checkpoint needs another meanwhile, so it would wait for the pool's timeout and fail
         */
        public JdbcSink build() {
            if (poolSize < 2) {
                throw new IllegalArgumentException("pool-size " + poolSize + " is too small for mode exactly-once: the "
                        + "open transaction holds one connection while the previous checkpoint's commit needs another; "
                        + "set pool-size to 2 or more");
            }
            return new JdbcSink(settings());
        }

        /** The write-ahead sink: exactly-once without prepared transactions. */
        public JdbcWriteAheadSink buildWriteAhead() {
            return new JdbcWriteAheadSink(settings());
        }

        /** The idempotent (upsert) sink: at-least-once delivery, exactly-once final state. */
        public JdbcUpsertSink buildIdempotent() {
            return new JdbcUpsertSink(settings());
        }

        /** The sink of {@code mode}. */
        public Sink<Event> build(JdbcMode mode) {
            return switch (mode) {
                case EXACTLY_ONCE -> build();
                case WRITE_AHEAD -> buildWriteAhead();
                case IDEMPOTENT -> buildIdempotent();
            };
        }
    }
}
