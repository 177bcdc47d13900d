package dev.onceflow.connector.jdbc;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.RowSink;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventRows;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.sink.Sink;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Makes the JDBC sink usable from job files as {@code jdbc}, in any of its {@linkplain JdbcMode modes}.
 * Rows are written field by field, each into the column of its name or the one option
 * {@code columns} gives. Input with exactly the fields of an event ({@code id, key, payload,
 * count}) may name its columns with the {@code *-column} options instead, as job files did before
 * rows; the rows then land in the same columns, and a write-ahead checkpoint holds the same bytes.
 */
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
            .description("Table to write. Used as one quoted identifier, so case and dots are kept.");

    public static final Option<String> COLUMNS = Option.stringOption("columns")
            .check(JdbcSinkFactory::columnsProblem, "field=column pairs separated by commas")
            .description("Columns of input fields whose column has another name, as field=column pairs separated by "
                    + "commas (customer=customer_id, total=amount); every other field goes to the column of its own "
                    + "name. For input that is not events.");

    public static final Option<CreateTable> CREATE_TABLE = Option.enumOption("create-table", CreateTable.class)
            .defaultValue(CreateTable.IF_MISSING)
            .description("if-missing: create the table when it does not exist, a column per field with the field's "
                    + "type and the primary key as the key (events: text id as the key, text key, bigint count, text "
                    + "payload); never: the table must exist. Either way the sink checks at start that the table has "
                    + "a column for every field.");

    public static final Option<JdbcMode> MODE = Option.enumOption("mode", JdbcMode.class)
            .defaultValue(JdbcMode.EXACTLY_ONCE)
            .description("exactly-once: a prepared transaction per checkpoint (PostgreSQL: needs "
                    + "max_prepared_transactions; MariaDB: XA); "
                    + "write-ahead: rows kept in the checkpoint and written with a marker row after it completes, "
                    + "exactly-once without prepared transactions; idempotent: upserts by primary key (an event's id), "
                    + "at-least-once delivery with an exactly-once final state.");

    public static final Option<WriteMethod> WRITE_METHOD = Option.enumOption("write-method", WriteMethod.class)
            .defaultValue(WriteMethod.COPY)
            .description("How rows are sent in the exactly-once and write-ahead modes on PostgreSQL: COPY (fastest) "
                    + "or batched INSERT. MariaDB always uses batched INSERT; the idempotent mode always upserts.");

    public static final Option<WriteMode> WRITE_MODE = Option.enumOption("write-mode", WriteMode.class)
            .defaultValue(WriteMode.INSERT)
            .description("insert: every row is appended, and an update or delete fails the job; upsert: inserts and "
                    + "updates are written as upserts by primary key (PostgreSQL INSERT ... ON CONFLICT DO UPDATE, "
                    + "MariaDB INSERT ... ON DUPLICATE KEY UPDATE), deletes delete the row of their key. Upsert "
                    + "needs a primary key and mode write-ahead or idempotent (the idempotent mode always upserts and "
                    + "applies deletes).");

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
            .description("Table of the markers of written checkpoints, created if missing: write-ahead mode "
                    + "inserts one with each segment, exactly-once mode one inside each prepared transaction as "
                    + "evidence of its commit. May be shared by many jobs and sinks.");

    // No default value: setting one for input that is not events is refused, never ignored.
    private static Option<String> column(String field) {
        return Option.stringOption(field + "-column")
                .validate(Columns::isValidIdentifier, "a column name of 1 to 63 bytes")
                .description("Column of the event's " + field + (field.equals("id") ? " (the primary key)" : "")
                        + "; " + field + " when not set. For input that is events.");
    }

    /** What is wrong with a {@code columns} value, or null. */
    static String columnsProblem(String text) {
        try {
            parseColumns(text);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** {@code a=b, c=d} as an ordered map; a field named twice or an empty side is refused. */
    static Map<String, String> parseColumns(String text) {
        Map<String, String> columns = new LinkedHashMap<>();
        for (String pair : text.split(",", -1)) {
            int equals = pair.indexOf('=');
            String field = equals < 0 ? "" : pair.substring(0, equals).strip();
            String column = equals < 0 ? "" : pair.substring(equals + 1).strip();
            if (field.isEmpty() || column.isEmpty()) {
                throw new IllegalArgumentException("'" + pair.strip() + "' is not a field=column pair");
            }
            if (columns.put(field, column) != null) {
                throw new IllegalArgumentException("field '" + field + "' is mapped twice");
            }
        }
        return columns;
    }

    @Override
    public String identifier() {
        return "jdbc";
    }

    @Override
    public String description() {
        return "Writes rows into a PostgreSQL or MariaDB table, a field per column: exactly-once with prepared (XA) "
                + "transactions (default) or a write-ahead log, or idempotent upserts by primary key.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(URL, USER, PASSWORD, TABLE, MODE, WRITE_MODE, WRITE_METHOD, COLUMNS, CREATE_TABLE, ID_COLUMN, KEY_COLUMN,
                COUNT_COLUMN, PAYLOAD_COLUMN, BATCH_SIZE, POOL_SIZE, TRANSACTION_TIMEOUT, COMMITTER_TABLE);
    }

    /** Upsert write mode and the idempotent mode apply changes by primary key (CHG-4). */
    @Override
    public boolean acceptsChanges(OptionValues options) {
        return options.get(WRITE_MODE) == WriteMode.UPSERT || options.get(MODE) == JdbcMode.IDEMPOTENT;
    }

    /** The sink of rows: every field into its column (ROW-4). */
    @Override
    public RowSink<Row> createRowSink(Context context) {
        OptionValues options = context.options();
        Map<String, String> columns = new LinkedHashMap<>(
                options.getOptional(COLUMNS).map(JdbcSinkFactory::parseColumns).orElse(Map.of()));
        for (Option<String> eventColumn : List.of(ID_COLUMN, KEY_COLUMN, COUNT_COLUMN, PAYLOAD_COLUMN)) {
            if (options.getOptional(eventColumn).isEmpty()) {
                continue;
            }
            String field = eventColumn.key().substring(0, eventColumn.key().length() - "-column".length());
            if (!isEvents(context.inputSchema())) {
                throw new OptionException("sink 'jdbc': option '" + eventColumn.key() + "' maps a field of events, "
                        + "and the input is not events (fields " + String.join(", ", context.inputSchema().names())
                        + "); map fields to columns with option 'columns: field=column, ...'");
            }
            if (options.getOptional(COLUMNS).isPresent()) {
                throw new OptionException("sink 'jdbc': options '" + eventColumn.key() + "' and 'columns' both map "
                        + "fields; map every field with 'columns'");
            }
            columns.put(field, options.get(eventColumn));
        }
        try {
            return RowSink.ofRows(configured(JdbcSink.builder(options.get(URL), options.get(TABLE)), options)
                    .rows(context.inputSchema(), columns).build(options.get(MODE)));
        } catch (OptionException e) {
            throw new OptionException("sink 'jdbc': " + e.getMessage());
        }
    }

    /** Whether {@code schema} has exactly an event's fields, in any order. */
    private static boolean isEvents(Schema schema) {
        try {
            EventRows.fromSchema(schema, "sink 'jdbc'");
            return true;
        } catch (OptionException notEvents) {
            return false;
        }
    }

    @Override
    public Sink<Event> createSink(OptionValues options) {
        Columns names = Columns.DEFAULT;
        JdbcSink.Builder<Event> builder = configured(JdbcSink.builder(options.get(URL), options.get(TABLE)), options)
                .columns(new Columns(options.getOptional(ID_COLUMN).orElse(names.id()),
                        options.getOptional(KEY_COLUMN).orElse(names.key()),
                        options.getOptional(COUNT_COLUMN).orElse(names.count()),
                        options.getOptional(PAYLOAD_COLUMN).orElse(names.payload())));
        return builder.build(options.get(MODE));
    }

    private static JdbcSink.Builder<Event> configured(JdbcSink.Builder<Event> builder, OptionValues options) {
        builder.writeMethod(options.get(WRITE_METHOD))
                .writeMode(options.get(WRITE_MODE))
                .batchSize(options.get(BATCH_SIZE))
                .poolSize(options.get(POOL_SIZE))
                .committerTable(options.get(COMMITTER_TABLE))
                .createTable(options.get(CREATE_TABLE));
        options.getOptional(USER).ifPresent(builder::user);
        options.getOptional(PASSWORD).ifPresent(builder::password);
        options.getOptional(TRANSACTION_TIMEOUT).ifPresent(builder::transactionTimeout);
        return builder;
    }
}
