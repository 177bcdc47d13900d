package dev.onceflow.connector.postgrescdc;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.RowSource;
import dev.onceflow.spi.factory.SourceFactory;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.source.ReplayableSource;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Makes {@link PostgresCdcSource} usable from job files as {@code postgres-cdc}. When the job is
 * checked it connects once to read the table's columns and primary key (the rows' schema) and to
 * check the server ({@link ServerChecks}); anything that does not fit is refused in one line.
 */
public final class PostgresCdcSourceFactory implements SourceFactory {

    // Hidden: a URL may carry password=... in its query.
    public static final Option<String> URL = Option.stringOption("url").required().hiddenInMessages()
            .check(PostgresCdcSourceFactory::urlProblem, "a JDBC URL such as jdbc:postgresql://host:5432/database")
            .description("JDBC URL of the PostgreSQL database holding the table: jdbc:postgresql://host:port/database.");

    public static final Option<String> USER = Option.stringOption("user").required()
            .description("Database user; it needs the REPLICATION attribute and SELECT on the table (and its "
                    + "ownership, if the publication does not exist yet).");

    // Never echoed: it has no validation, and should it get one, its messages leave the value out.
    public static final Option<String> PASSWORD = Option.stringOption("password").hiddenInMessages()
            .description("Database password; never logged.");

    public static final Option<String> TABLES = Option.stringOption("tables").required()
            .check(PostgresCdcSourceFactory::tablesProblem, "one table as schema.table")
            .description("The table to capture, as schema.table (or table, in schema public). One table per source.");

    public static final Option<String> SLOT = Option.stringOption("slot")
            .check(PostgresCdcSourceFactory::identifierProblem, "lower-case letters, digits and _, at most 63")
            .description("Replication slot, created if missing. Default: onceflow_<job>_<source uid>, so each "
                    + "job and source has its own.");

    public static final Option<String> PUBLICATION = Option.stringOption("publication")
            .description("Publication of the table, created for it if missing. Default: the slot's name.");

    public static final Option<PostgresCdcSource.Snapshot> SNAPSHOT = Option
            .enumOption("snapshot", PostgresCdcSource.Snapshot.class)
            .defaultValue(PostgresCdcSource.Snapshot.INITIAL)
            .description("initial: the table's rows as inserts, then its changes; never: only changes committed "
                    + "after the slot was created. Only a first start takes it; a resumed job goes on from its "
                    + "checkpoint.");

    private static final String OWNER = "source 'postgres-cdc'";
    private static final String URL_PREFIX = "jdbc:postgresql://";

    @Override
    public String identifier() {
        return "postgres-cdc";
    }

    @Override
    public String description() {
        return "The inserts, updates and deletes of a PostgreSQL table (after a snapshot of its rows), from a "
                + "logical replication slot, as a changelog replayable from Onceflow's checkpoints.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(URL, USER, PASSWORD, TABLES, SLOT, PUBLICATION, SNAPSHOT);
    }

    @Override
    public boolean yieldsChanges(OptionValues options) {
        return true;
    }

    @Override
    public RowSource<?> createRowSource(Context context) {
        if (context.declaredSchema().isPresent()) {
            throw new OptionException(OWNER + " takes its schema from the table's columns and primary key; remove "
                    + "the job file's schema");
        }
        PostgresCdcSource source = source(context);
        return RowSource.ofRows(source.schema(), source);
    }

    /** The source, its table read and the server checked. */
    PostgresCdcSource source(Context context) {
        OptionValues options = context.options();
        String slot = options.getOptional(SLOT).orElseGet(() -> defaultSlot(context.jobName(), context.sourceUid()));
        String publication = options.getOptional(PUBLICATION).orElse(slot);
        String url = options.get(URL);
        Properties parsed = org.postgresql.Driver.parseURL(url, null);
        if (parsed == null) {
            throw new OptionException(OWNER + ": option 'url' is not a PostgreSQL JDBC URL; write "
                    + "jdbc:postgresql://host:port/database");
        }
        Properties credentials = new Properties();
        credentials.setProperty("user", options.get(USER));
        options.getOptional(PASSWORD).ifPresent(password -> credentials.setProperty("password", password));
        String host = parsed.getProperty("PGHOST", "localhost").split(",")[0];
        int port = Integer.parseInt(parsed.getProperty("PGPORT", "5432").split(",")[0]);
        String database = parsed.getProperty("PGDBNAME");
        CapturedTable table;
        try (Connection connection = DriverManager.getConnection(url, credentials)) {
            table = CapturedTable.read(connection, options.get(TABLES).trim(), OWNER);
            ServerChecks.check(connection, table, slot, publication, OWNER);
        } catch (SQLException e) {
            throw new OptionException(OWNER + ": cannot read table '" + options.get(TABLES).trim() + "' at " + host
                    + ":" + port + "/" + database + " as user '" + options.get(USER) + "': " + firstLine(e.getMessage()));
        }
        return new PostgresCdcSource(new PostgresCdcSource.Settings(host, port, database, options.get(USER),
                options.getOptional(PASSWORD).orElse(null), table, slot, publication, options.get(SNAPSHOT)));
    }

    @Override
    public ReplayableSource<Event, ?, ?> createSource(OptionValues options) {
        throw new OptionException(OWNER + " yields rows of its table, not events; use it from a job file");
    }

    /**
     * {@code onceflow_<job>_<uid>}: lower case, anything but letters and digits as {@code _}, cut to
     * PostgreSQL's 63 bytes with a hash of the whole so two long names stay apart.
     */
    static String defaultSlot(String jobName, String sourceUid) {
        String name = ("onceflow_" + jobName + "_" + sourceUid).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        if (name.getBytes(StandardCharsets.UTF_8).length <= 63) {
            return name;
        }
        String hash = Integer.toHexString(name.hashCode());
        return name.substring(0, 63 - hash.length() - 1) + "_" + hash;
    }

    private static String urlProblem(String url) {
        return url.startsWith(URL_PREFIX) ? null : "does not start with " + URL_PREFIX;
    }

    private static String tablesProblem(String tables) {
        if (tables.contains(",")) {
            return "names several tables, and this source captures one: use one source per table";
        }
        return tables.isBlank() ? "is empty" : null;
    }

    private static String identifierProblem(String name) {
        return name.matches("[a-z0-9_]{1,63}") ? null : "has characters other than a-z, 0-9 and _, or more than 63";
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "no message";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
