package dev.onceflow.connector.jdbc;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.Sink;
import java.time.Duration;
import java.util.List;

/** Makes the JDBC sink usable from job files as {@code jdbc}, in any of its {@linkplain JdbcMode modes}. */
public final class JdbcSinkFactory implements SinkFactory {

    // Hidden: a URL may carry password=... in its query; a wrong one is described part by part.
    public static final Option<String> URL = Option.stringOption("url").required().hiddenInMessages()
            .check(SqlDialect::urlProblem, "a JDBC URL such as " + SqlDialect.SUPPORTED_URLS)
            .description("JDBC URL of the PostgreSQL or MariaDB database (jdbc:mysql:// URLs are served by the "
                    + "MariaDB driver).");

    public static final Option<String> USER = Option.stringOption("user")
            .description("Database user; omit to use the URL's or the driver's default.");

    // Never echoed: this option has no validation, and should it get one, its messages leave the value out.
    public static final Option<String> PASSWORD = Option.stringOption("password").hiddenInMessages()
            .description("Database password; never logged.");

    public static final Option<String> TABLE = Option.stringOption("table").required()
            .validate(JdbcSink::isValidTableName, "a table name of 1 to 63 bytes")
            .description("Table to write, created if missing with a text primary key for the id, text key, "
                    + "bigint count and text payload. Used as one quoted identifier, so case and dots are kept.");

    public static final Option<JdbcMode> MODE = Option.enumOption("mode", JdbcMode.class)
            .defaultValue(JdbcMode.EXACTLY_ONCE)
            .description("exactly-once: a prepared transaction per checkpoint (PostgreSQL: needs "
                    + "max_prepared_transactions; MariaDB: XA); "
                    + "write-ahead: rows kept in the checkpoint and written with a marker row after it completes, "
                    + "exactly-once without prepared transactions; idempotent: upserts by id, at-least-once "
                    + "delivery with an exactly-once final state.");

    public static final Option<WriteMethod> WRITE_METHOD = Option.enumOption("write-method", WriteMethod.class)
            .defaultValue(WriteMethod.COPY)
            .description("How rows are sent in the exactly-once and write-ahead modes on PostgreSQL: COPY (fastest) "
                    + "or batched INSERT. MariaDB always uses batched INSERT; the idempotent mode always upserts.");

    public static final Option<String> ID_COLUMN = column("id");
    public static final Option<String> KEY_COLUMN = column("key");
    public static final Option<String> COUNT_COLUMN = column("count");
    public static final Option<String> PAYLOAD_COLUMN = column("payload");

    public static final Option<Integer> BATCH_SIZE = Option.intOption("batch-size").defaultValue(1000).atLeast(1)
            .description("Rows sent to the database in one batch (one COPY or one multi-row INSERT).");

    public static final Option<Integer> POOL_SIZE = Option.intOption("pool-size").defaultValue(4).atLeast(1)
            .description("Maximum connections of each subtask's pool; mode exactly-once needs 2 or more.");

    public static final Option<Duration> TRANSACTION_TIMEOUT = Option.durationOption("transaction-timeout")
            .validate(d -> !d.isZero() && !d.isNegative(), "a positive duration such as 10m")
            .description("Sets the server's idle_in_transaction_session_timeout for the sink's sessions, so a hung "
                    + "writer cannot hold locks forever. Off by default: a stream idle for longer also trips it "
                    + "and restarts the job.");

    public static final Option<String> COMMITTER_TABLE = Option.stringOption("committer-table")
            .defaultValue(JdbcCheckpointCommitter.DEFAULT_TABLE)
            .validate(JdbcSink::isValidTableName, "a table name of 1 to 63 bytes")
            .description("write-ahead mode: table of the markers of written checkpoints, created if missing; "
                    + "may be shared by many jobs and sinks.");

    private static Option<String> column(String field) {
        return Option.stringOption(field + "-column").defaultValue(field)
                .validate(Columns::isValidIdentifier, "a column name of 1 to 63 bytes")
                .description("Column of the event's " + field + (field.equals("id") ? " (the primary key)." : "."));
    }

    @Override
    public String identifier() {
        return "jdbc";
    }

    @Override
    public String description() {
        return "Writes events as rows of a PostgreSQL or MariaDB table: exactly-once with prepared (XA) transactions (default) "
                + "or a write-ahead log, or idempotent upserts.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(URL, USER, PASSWORD, TABLE, MODE, WRITE_METHOD, ID_COLUMN, KEY_COLUMN, COUNT_COLUMN,
                PAYLOAD_COLUMN, BATCH_SIZE, POOL_SIZE, TRANSACTION_TIMEOUT, COMMITTER_TABLE);
    }

    @Override
    public Sink<Event> createSink(OptionValues options) {
        JdbcSink.Builder builder = JdbcSink.builder(options.get(URL), options.get(TABLE))
                .columns(new Columns(options.get(ID_COLUMN), options.get(KEY_COLUMN), options.get(COUNT_COLUMN),
                        options.get(PAYLOAD_COLUMN)))
                .writeMethod(options.get(WRITE_METHOD))
                .batchSize(options.get(BATCH_SIZE))
                .poolSize(options.get(POOL_SIZE))
                .committerTable(options.get(COMMITTER_TABLE));
        options.getOptional(USER).ifPresent(builder::user);
        options.getOptional(PASSWORD).ifPresent(builder::password);
        options.getOptional(TRANSACTION_TIMEOUT).ifPresent(builder::transactionTimeout);
        return builder.build(options.get(MODE));
    }
}
