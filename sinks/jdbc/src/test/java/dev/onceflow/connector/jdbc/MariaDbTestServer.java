package dev.onceflow.connector.jdbc;

import dev.onceflow.testing.mariadb.MariaDbServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real MariaDB server for one test class, listening on localhost only, with no XA transaction
 * outliving a test: {@code @RegisterExtension static final MariaDbTestServer server = new MariaDbTestServer();}
 */
final class MariaDbTestServer implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    private MariaDbServer mariadb;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        mariadb = MariaDbServer.start();
    }

    /** Rolls back every prepared XA transaction a test left, so that none holds locks into the next. */
    @Override
    public void afterEach(ExtensionContext context) throws SQLException {
        for (String gid : preparedGids()) {
            execute("XA ROLLBACK '" + gid + "'");
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (mariadb != null) {
            mariadb.close();
        }
    }

    String url() {
        return mariadb.url();
    }

    Connection connect() throws SQLException {
        return mariadb.connect();
    }

    /** Kills the server process and starts it again on the same data. */
    void crashAndRestart() throws Exception {
        mariadb.crashAndRestart();
    }

    List<List<String>> query(String sql) throws SQLException {
        return JdbcTestSupport.query(connect(), sql);
    }

    void execute(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** The ids of the prepared XA transactions, as {@code XA RECOVER} lists them. */
    List<String> preparedGids() throws SQLException {
        return query("XA RECOVER").stream().map(row -> row.get(3)).toList();
    }
}
