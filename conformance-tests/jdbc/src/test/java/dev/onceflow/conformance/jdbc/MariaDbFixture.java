package dev.onceflow.conformance.jdbc;

import dev.onceflow.conformance.TestDestination;
import dev.onceflow.spi.record.Event;
import dev.onceflow.testing.mariadb.MariaDbServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** One MariaDB server (the installed mariadbd) for a whole suite; each case writes into a table of its own. */
final class MariaDbFixture implements JdbcDatabase {

    /** ER_NO_SUCH_TABLE: the job died before any writer created the table. */
    private static final int NO_SUCH_TABLE = 1146;

    private final String mode;
    private MariaDbServer server;

    /** @param mode the sink's {@code mode} option */
    MariaDbFixture(String mode) {
        this.mode = mode;
    }

    @Override
    public void start() throws Exception {
        server = MariaDbServer.start();
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }

    /** SIGKILL and restart: harsher than a clean restart, and InnoDB must recover the prepared XA transactions. */
    @Override
    public void restart() throws Exception {
        server.crashAndRestart();
    }

    /**
     * Kills every session connected to the sink's database. MariaDB does not list an active XA
     * transaction in {@code information_schema.innodb_trx} the way PostgreSQL shows "idle in
     * transaction" (measured: nothing found while the sink wrote one row per batch), so this
     * cannot pick out the sessions inside a transaction; with one row per batch most of the
     * sink's sessions are between XA START and XA PREPARE at any moment. Prepared XA transactions
     * have no session and survive.
     */
    @Override
    public int terminateSinkSessionsInTransaction() throws SQLException {
        int killed = 0;
        try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
            List<Long> sessions = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery("SELECT ID FROM information_schema.PROCESSLIST "
                    + "WHERE ID <> CONNECTION_ID() AND DB = '" + MariaDbServer.DATABASE + "'")) {
                while (rows.next()) {
                    sessions.add(rows.getLong(1));
                }
            }
            for (long session : sessions) {
                try {
                    statement.execute("KILL " + session);
                    killed++;
                } catch (SQLException e) {
                    // ended by itself meanwhile (ER_NO_SUCH_THREAD)
                }
            }
        }
        return killed;
    }

    @Override
    public String variant() {
        return "mariadb" + (mode.equals("exactly-once") ? "" : "-" + mode);
    }

    @Override
    public String sinkIdentifier() {
        return "jdbc";
    }

    @Override
    public Map<String, Object> sinkOptions(TestDestination destination) {
        return Map.of("url", server.url(), "user", "root", "table", destination.name(), "mode", mode,
                "committer-table", destination.name() + "_checkpoints");
    }

    @Override
    public List<Event> readCommitted(TestDestination destination) throws SQLException {
        List<Event> events = new ArrayList<>();
        try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
            statement.execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
            try (ResultSet rows = statement.executeQuery(
                    "SELECT `id`, `key`, `count`, `payload` FROM `" + destination.name() + "`")) {
                while (rows.next()) {
                    events.add(new Event(rows.getString(1), rows.getString(2), rows.getString(4), rows.getLong(3)));
                }
            }
        } catch (SQLException e) {
            if (e.getErrorCode() != NO_SUCH_TABLE) {
                throw e;
            }
        }
        return events;
    }

    /** Prepared XA transactions (of any job: the suite runs one at a time) and sessions left inside a transaction. */
    @Override
    public List<String> leftovers(TestDestination destination) throws SQLException {
        List<String> left = new ArrayList<>();
        try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
            try (ResultSet rows = statement.executeQuery("XA RECOVER")) {
                while (rows.next()) {
                    left.add("prepared XA transaction " + new String(rows.getBytes("data"),
                            java.nio.charset.StandardCharsets.UTF_8));
                }
            }
            try (ResultSet rows = statement.executeQuery("SELECT trx_mysql_thread_id, trx_state FROM "
                    + "information_schema.innodb_trx WHERE trx_mysql_thread_id > 0 "
                    + "AND trx_mysql_thread_id <> CONNECTION_ID()")) {
                while (rows.next()) {
                    left.add("session " + rows.getLong(1) + " left inside a transaction (" + rows.getString(2) + ")");
                }
            }
        }
        return left;
    }
}
