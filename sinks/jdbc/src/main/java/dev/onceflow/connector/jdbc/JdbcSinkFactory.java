package dev.onceflow.connector.jdbc;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.Sink;
import java.util.List;

/** Makes {@link JdbcSink} usable from job files as {@code jdbc}. */
public final class JdbcSinkFactory implements SinkFactory {

    public static final Option<String> URL = Option.stringOption("url").required()
            .validate(JdbcSink::isPostgresUrl, "a PostgreSQL JDBC URL such as jdbc:postgresql://host:5432/database")
            .description("JDBC URL of the PostgreSQL database; exactly-once mode supports PostgreSQL only.");

    public static final Option<String> USER = Option.stringOption("user")
            .description("Database user; omit to use the URL's or the driver's default.");

    // Never echoed: this option has no validation, so no error message can repeat its value.
    public static final Option<String> PASSWORD = Option.stringOption("password")
            .description("Database password; never logged.");

    public static final Option<String> TABLE = Option.stringOption("table").required()
            .validate(JdbcSink::isValidTableName, "a table name of 1 to 63 characters")
            .description("Table to insert into, created if missing with columns (id text primary key, key text, "
                    + "count bigint, payload text). Used as one quoted identifier, so case and dots are kept.");

    public static final Option<Integer> BATCH_SIZE = Option.intOption("batch-size").defaultValue(1000).atLeast(1)
            .description("Rows sent to the database in one batch.");

    public static final Option<Integer> POOL_SIZE = Option.intOption("pool-size").defaultValue(4).atLeast(1)
            .description("Maximum connections of each subtask's pool.");

    @Override
    public String identifier() {
        return "jdbc";
    }

    @Override
    public String description() {
        return "Writes events exactly once as rows of a PostgreSQL table, one prepared transaction per "
                + "checkpoint and subtask, committed when the checkpoint completes.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(URL, USER, PASSWORD, TABLE, BATCH_SIZE, POOL_SIZE);
    }

    @Override
    public Sink<Event> createSink(OptionValues options) {
        JdbcSink.Builder builder = JdbcSink.builder(options.get(URL), options.get(TABLE))
                .batchSize(options.get(BATCH_SIZE))
                .poolSize(options.get(POOL_SIZE));
        options.getOptional(USER).ifPresent(builder::user);
        options.getOptional(PASSWORD).ifPresent(builder::password);
        return builder.build();
    }
}
