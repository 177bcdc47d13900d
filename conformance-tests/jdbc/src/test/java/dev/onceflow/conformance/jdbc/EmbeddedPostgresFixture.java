package dev.onceflow.conformance.jdbc;

import dev.onceflow.conformance.TestDestination;
import dev.onceflow.spi.record.Event;
import dev.onceflow.testing.postgres.EmbeddedPostgresServer;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One embedded PostgreSQL for a whole suite, restarted with its prepared transactions where a
 * case asks for it; each case writes into a table of its own.
 */
final class EmbeddedPostgresFixture implements JdbcDatabase {

    /** SQLSTATE undefined_table: the job died before any writer created the table. */
    private static final String UNDEFINED_TABLE = "42P01";

    private final String mode;
    private EmbeddedPostgresServer postgres;

    /** @param mode the sink's {@code mode} option */
    EmbeddedPostgresFixture(String mode) {
        this.mode = mode;
    }

    @Override
    public void start() throws Exception {
        postgres = EmbeddedPostgresServer.start(Map.of("max_prepared_transactions", "64"));
    }

    @Override
    public void restart() throws IOException {
        postgres.restart();
    }

    @Override
    public int terminateSinkSessionsInTransaction() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet ended = statement.executeQuery("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        + "WHERE application_name LIKE 'onceflow%' AND state LIKE 'idle in transaction%'")) {
            int count = 0;
            while (ended.next()) {
                count += ended.getBoolean(1) ? 1 : 0;
            }
            return count;
        }
    }

    /** The exactly-once mode on PostgreSQL is the connector's plain report, {@code sink-jdbc}. */
    @Override
    public String variant() {
        return mode.equals("exactly-once") ? "" : mode;
    }

    @Override
    public void close() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Override
    public String sinkIdentifier() {
        return "jdbc";
    }

    @Override
    public Map<String, Object> sinkOptions(TestDestination destination) {
        // The name is a safe lower-case identifier, so it is also the table's name as stored.
        return Map.of("url", url(), "user", "postgres", "table", destination.name(), "mode", mode,
                "committer-table", destination.name() + "_checkpoints");
    }

    @Override
    public List<Event> readCommitted(TestDestination destination) throws SQLException {
        List<Event> events = new ArrayList<>();
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT id, key, count, payload FROM \"" + destination.name() + "\"")) {
            while (rows.next()) {
                events.add(new Event(rows.getString(1), rows.getString(2), rows.getString(4), rows.getLong(3)));
            }
        } catch (SQLException e) {
            if (!UNDEFINED_TABLE.equals(e.getSQLState())) {
                throw e;
            }
        }
        return events;
    }

    /** Prepared transactions (of any job: the suite runs one at a time) and sink sessions left inside a transaction. */
    @Override
    public List<String> leftovers(TestDestination destination) throws SQLException {
        List<String> left = new ArrayList<>();
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            try (ResultSet rows = statement.executeQuery("SELECT gid, database FROM pg_prepared_xacts")) {
                while (rows.next()) {
                    left.add("prepared transaction " + rows.getString(1) + " in database " + rows.getString(2));
                }
            }
            try (ResultSet sessions = statement.executeQuery("SELECT pid, application_name, state FROM "
                    + "pg_stat_activity WHERE state LIKE 'idle in transaction%' AND application_name LIKE 'onceflow%'")) {
                while (sessions.next()) {
                    left.add("session " + sessions.getString(1) + " of " + sessions.getString(2) + " left "
                            + sessions.getString(3));
                }
            }
        }
        return left;
    }

    private String url() {
        return postgres.url();
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), "postgres", "");
    }
}
