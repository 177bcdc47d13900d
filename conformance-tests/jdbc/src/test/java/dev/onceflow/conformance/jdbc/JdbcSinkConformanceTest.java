package dev.onceflow.conformance.jdbc;

import dev.onceflow.conformance.SinkConformanceSuite;
import dev.onceflow.conformance.SinkExternalSystem;
import dev.onceflow.conformance.TestDestination;
import dev.onceflow.spi.record.Event;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The whole sink suite against the JDBC sink on a real PostgreSQL: this fixture is all it takes. */
class JdbcSinkConformanceTest extends SinkConformanceSuite {

    @Override
    protected SinkExternalSystem externalSystem() {
        return new EmbeddedPostgresFixture();
    }

    /** One embedded server for the whole suite; each case writes into a table of its own. */
    static final class EmbeddedPostgresFixture implements SinkExternalSystem {

        /** SQLSTATE undefined_table: the job died before any writer created the table. */
        private static final String UNDEFINED_TABLE = "42P01";

        private EmbeddedPostgres postgres;

        @Override
        public void start() throws Exception {
            postgres = EmbeddedPostgres.builder()
                    .setServerConfig("max_prepared_transactions", "64")
                    .setServerConfig("listen_addresses", "localhost")
                    .start();
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
            return Map.of("url", url(), "user", "postgres", "table", destination.name());
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

        @Override
        public List<String> leftovers(TestDestination destination) throws SQLException {
            List<String> prepared = new ArrayList<>();
            try (Connection connection = connect(); Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery("SELECT gid, database FROM pg_prepared_xacts")) {
                while (rows.next()) {
                    prepared.add("prepared transaction " + rows.getString(1) + " in database " + rows.getString(2));
                }
            }
            return prepared;
        }

        private String url() {
            return "jdbc:postgresql://localhost:" + postgres.getPort() + "/postgres";
        }

        private Connection connect() throws SQLException {
            return DriverManager.getConnection(url(), "postgres", "");
        }
    }
}
