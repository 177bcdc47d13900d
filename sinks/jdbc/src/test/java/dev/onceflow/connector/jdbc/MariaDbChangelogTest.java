package dev.onceflow.connector.jdbc;

import dev.onceflow.testing.mariadb.MariaDbServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** {@link ChangelogCases} on a real MariaDB: upserts by {@code INSERT ... ON DUPLICATE KEY UPDATE}. */
class MariaDbChangelogTest extends ChangelogCases {

    private static MariaDbServer server;

    @BeforeAll
    static void startServer() throws Exception {
        server = MariaDbServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void noPreparedTransactionOutlivesATest() throws SQLException {
        for (List<String> xa : JdbcTestSupport.query(server.connect(), "XA RECOVER")) {
            try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
                statement.execute("XA ROLLBACK '" + xa.get(3) + "'");
            }
        }
    }

    @Override
    String url() {
        return server.url();
    }

    @Override
    String user() {
        return "root";
    }

    @Override
    List<List<String>> rows(String table) throws SQLException {
        return JdbcTestSupport.query(server.connect(), "SELECT `id`, `owner`, `balance` FROM `" + table
                + "` ORDER BY `id`");
    }
}
