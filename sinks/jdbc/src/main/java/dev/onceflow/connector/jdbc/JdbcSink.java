package dev.onceflow.connector.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventSerializer;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowSerializer;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.Sink;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import java.time.Duration;
import java.util.Map;
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
 * JdbcSink<Event> sink = JdbcSink.builder("jdbc:postgresql://db:5432/app", "events").user("app").password(secret).build();
 * Sink<Event> upserts = JdbcSink.builder(url, "events").build(JdbcMode.IDEMPOTENT);
 * Sink<Row> orders = JdbcSink.builder(url, "orders").rows(schema, Map.of("customer", "customer_id")).build(mode);
 * }</pre>
 *
 * <p>A PostgreSQL server must allow prepared transactions: {@code max_prepared_transactions} at
 * least parallelism x (max concurrent checkpoints + 1). Writers check it at start. Immutable; holds
 * settings only, and never shows the password (not in {@link #toString()}, logs or exception
 * messages). The other modes are {@link JdbcWriteAheadSink} and {@link JdbcUpsertSink}.
 */
public final class JdbcSink<T> implements TwoPhaseCommitSink<T, JdbcTransaction> {

    private final JdbcSettings settings;
    private final RecordBinding<T> binding;

    JdbcSink(JdbcSettings settings, RecordBinding<T> binding) {
        this.settings = settings;
        this.binding = binding;
    }

    /**
     * A builder of a sink of events for the database at {@code url} ({@code jdbc:postgresql://...}
     * or {@code jdbc:mariadb://...}) and table {@code table}; {@link Builder#rows} makes it a sink
     * of rows.
     */
    public static Builder<Event> builder(String url, String table) {
        return new Builder<>(url, table, null);
    }

    static boolean isSupportedUrl(String url) {
        return SqlDialect.forUrl(url).isPresent();
    }

    static boolean isValidTableName(String table) {
        return Columns.isValidIdentifier(table);
    }

    /** Connects: opens the subtask's pool, checks prepared transactions are enabled, creates the table. */
    @Override
    public TransactionalWriter<T, JdbcTransaction> createWriter(SinkContext context) throws Exception {
        HikariDataSource pool = settings.openPool(context, "2pc");
        try {
            JdbcSinkWriter<T> writer = new JdbcSinkWriter<>(context, pool, settings, binding);
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
        return "JdbcSink[exactly-once, " + settings + ", " + binding + "]";
    }

    /** Builds a JDBC sink in any of its {@linkplain JdbcMode modes}. */
    public static final class Builder<T> {

        private final String url;
        private final String table;
        /** Null for events, whose binding comes from {@link #columns}. */
        private final RowSchemaColumns rowColumns;
        private String user;
        private String password;
        private Columns columns = Columns.DEFAULT;
        private int batchSize = 1000;
        private int poolSize = 4;
        private WriteMethod writeMethod = WriteMethod.COPY;
        private WriteMode writeMode = WriteMode.INSERT;
        private Duration transactionTimeout;
        private String committerTable = JdbcCheckpointCommitter.DEFAULT_TABLE;
        private CreateTable createTable = CreateTable.IF_MISSING;

        private Builder(String url, String table, RowSchemaColumns rowColumns) {
            this.url = Objects.requireNonNull(url, "url");
            this.table = Objects.requireNonNull(table, "table");
            this.rowColumns = rowColumns;
            if (!isSupportedUrl(url)) {
                throw new IllegalArgumentException("url must be a PostgreSQL or MariaDB JDBC URL such as "
                        + SqlDialect.SUPPORTED_URLS);
            }
            if (!isValidTableName(table)) {
                throw new IllegalArgumentException("table name must be 1 to " + Columns.MAX_IDENTIFIER_BYTES
                        + " bytes without NUL characters");
            }
        }

        /**
         * A builder of a sink of rows of {@code schema}, with this builder's settings: each field
         * goes to the column of its name, or to the one {@code columnsByField} gives it. The
         * schema's primary key is the key of mode idempotent's upserts and of a created table.
         *
         * @throws dev.onceflow.spi.factory.OptionException when a field is nested (row, array,
         *     map), the mapping names a field the schema lacks, or two fields share a column
         */
        public Builder<Row> rows(Schema schema, Map<String, String> columnsByField) {
            Builder<Row> rows = new Builder<>(url, table, new RowSchemaColumns(schema, Map.copyOf(columnsByField)));
            rows.binding(SqlDialect.forUrl(url).orElseThrow());
            rows.user = user;
            rows.password = password;
            rows.batchSize = batchSize;
            rows.poolSize = poolSize;
            rows.writeMethod = writeMethod;
            rows.writeMode = writeMode;
            rows.transactionTimeout = transactionTimeout;
            rows.committerTable = committerTable;
            rows.createTable = createTable;
            return rows;
        }

        public Builder<T> user(String user) {
            this.user = Objects.requireNonNull(user, "user");
            return this;
        }

        public Builder<T> password(String password) {
            this.password = Objects.requireNonNull(password, "password");
            return this;
        }

        /** Which columns the event's fields go to; {@link Columns#DEFAULT} by default. Sinks of events only. */
        public Builder<T> columns(Columns columns) {
            if (rowColumns != null) {
                throw new IllegalStateException("columns(Columns) maps the fields of events; rows are mapped by rows()");
            }
            this.columns = Objects.requireNonNull(columns, "columns");
            return this;
        }

        /** Rows sent in one batch (one COPY or one multi-row INSERT); 1000 by default. */
        public Builder<T> batchSize(int batchSize) {
            if (batchSize < 1) {
                throw new IllegalArgumentException("batch size must be at least 1, was " + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /** Maximum connections of each subtask's pool; 4 by default. */
        public Builder<T> poolSize(int poolSize) {
            if (poolSize < 1) {
                throw new IllegalArgumentException("pool size must be at least 1, was " + poolSize);
            }
            this.poolSize = poolSize;
            return this;
        }

        /** COPY (default; PostgreSQL only, MariaDB always inserts) or batched INSERT; upserts always INSERT. */
        /**
         * What the exactly-once and write-ahead sinks do with rows: append them (the default), or
         * apply inserts, updates and deletes by primary key (CHG-4). The idempotent sink always
         * upserts.
         */
        public Builder<T> writeMode(WriteMode writeMode) {
            this.writeMode = Objects.requireNonNull(writeMode, "writeMode");
            return this;
        }

        public Builder<T> writeMethod(WriteMethod writeMethod) {
            this.writeMethod = Objects.requireNonNull(writeMethod, "writeMethod");
            return this;
        }

        /**
         * The server ends a session that stays idle inside an open transaction for longer
         * ({@code idle_in_transaction_session_timeout}); a hung writer then cannot hold locks
         * forever. Off by default: an idle stream would also trip it, failing and restarting the job.
         */
        public Builder<T> transactionTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("transaction timeout must be positive, was " + timeout);
            }
            this.transactionTimeout = timeout;
            return this;
        }

        /**
         * Table of the checkpoint markers ({@code onceflow_checkpoints} by default): the
         * write-ahead mode's record of written segments, and the exactly-once mode's evidence
         * that a prepared transaction committed (rule 2PC-9).
         */
        public Builder<T> committerTable(String committerTable) {
            if (!isValidTableName(committerTable)) {
                throw new IllegalArgumentException("committer table name must be 1 to " + Columns.MAX_IDENTIFIER_BYTES
                        + " bytes without NUL characters");
            }
            this.committerTable = committerTable;
            return this;
        }

        /** Whether the sink creates its table when it is missing ({@link CreateTable#IF_MISSING}, the default). */
        public Builder<T> createTable(CreateTable createTable) {
            this.createTable = Objects.requireNonNull(createTable, "createTable");
            return this;
        }

        private RecordBinding<T> binding(SqlDialect dialect) {
            @SuppressWarnings("unchecked")
            RecordBinding<T> binding = rowColumns == null ? (RecordBinding<T>) new EventBinding(columns)
                    : (RecordBinding<T>) RowBinding.of(rowColumns.schema(), dialect, rowColumns.columnsByField());
            return binding;
        }

        private JdbcSettings settings() {
            if (committerTable.equals(table)) {
                throw new IllegalArgumentException("the committer table must differ from the sink's table " + table);
            }
            return new JdbcSettings(SqlDialect.forUrl(url).orElseThrow(), url, table, user, password, batchSize, poolSize, writeMethod, writeMode,
                    Optional.ofNullable(transactionTimeout), committerTable, createTable);
        }

        /**
         * The exactly-once (two-phase commit) sink.
         *
         * @throws IllegalArgumentException with a pool of one connection: the open transaction
         *     holds one from its first row to its prepare, and the commit of the previous
         *     checkpoint needs another meanwhile, so it would wait for the pool's timeout and fail
         */
        public JdbcSink<T> build() {
            if (poolSize < 2) {
                throw new IllegalArgumentException("pool-size " + poolSize + " is too small for mode exactly-once: the "
                        + "open transaction holds one connection while the previous checkpoint's commit needs another; "
                        + "set pool-size to 2 or more");
            }
            if (writeMode == WriteMode.UPSERT) {
                // A prepared transaction keeps the rows it changed locked until its commit, and the
                // commit runs on the task thread, which would wait on those locks to change the same
                // key in the next checkpoint's transaction: a deadlock, not a slow commit.
                throw new dev.onceflow.spi.factory.OptionException("write-mode upsert does not work with mode "
                        + "exactly-once: a prepared transaction locks its rows until its commit, and the next "
                        + "checkpoint's change of the same key would wait for it forever; use mode write-ahead "
                        + "(exactly-once) or idempotent");
            }
            JdbcSettings settings = settings();
            return new JdbcSink<>(settings, binding(settings.dialect()));
        }

        /** The write-ahead sink: exactly-once without prepared transactions. */
        public JdbcWriteAheadSink<T> buildWriteAhead() {
            JdbcSettings settings = settings();
            RecordBinding<T> binding = binding(settings.dialect());
            @SuppressWarnings("unchecked")
            SimpleVersionedSerializer<T> serializer = binding instanceof RowBinding rows
                    ? (SimpleVersionedSerializer<T>) RowSerializer.of(rows.schema())
                    : (SimpleVersionedSerializer<T>) EventSerializer.INSTANCE;
            return new JdbcWriteAheadSink<>(settings, binding, serializer);
        }

        /**
         * The idempotent (upsert) sink: at-least-once delivery, exactly-once final state.
         *
         * @throws IllegalArgumentException for rows whose schema has no primary key to upsert by
         */
        public JdbcUpsertSink<T> buildIdempotent() {
            JdbcSettings settings = settings();
            RecordBinding<T> binding = binding(settings.dialect());
            if (binding.keyColumns().isEmpty()) {
                throw new dev.onceflow.spi.factory.OptionException("mode idempotent upserts rows by their primary key, "
                        + "and the input has none; declare one with 'primary-key' in the source's schema, or use mode "
                        + "exactly-once or write-ahead");
            }
            return new JdbcUpsertSink<>(settings, binding);
        }

        /**
         * The sink of {@code mode}.
         *
         * @throws dev.onceflow.spi.factory.OptionException for write mode upsert without a primary key
         */
        public Sink<T> build(JdbcMode mode) {
            if (writeMode == WriteMode.UPSERT && binding(SqlDialect.forUrl(url).orElseThrow()).keyColumns().isEmpty()) {
                throw new dev.onceflow.spi.factory.OptionException("write-mode upsert applies changes by primary key, "
                        + "and the input has none; declare one with 'primary-key' in the source's schema, or use "
                        + "write-mode insert");
            }
            return switch (mode) {
                case EXACTLY_ONCE -> build();
                case WRITE_AHEAD -> buildWriteAhead();
                case IDEMPOTENT -> buildIdempotent();
            };
        }
    }

    /** The schema and column mapping of a builder of rows. */
    private record RowSchemaColumns(Schema schema, Map<String, String> columnsByField) {
    }
}
