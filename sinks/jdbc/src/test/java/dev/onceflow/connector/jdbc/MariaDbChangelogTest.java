package dev.onceflow.connector.jdbc;

import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link ChangelogCases} on a real MariaDB: upserts by {@code INSERT ... ON DUPLICATE KEY UPDATE}. */
class MariaDbChangelogTest extends ChangelogCases {

    @RegisterExtension
    static final MariaDbTestServer server = new MariaDbTestServer();

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
        return server.query("SELECT `id`, `owner`, `balance` FROM `" + table
                + "` ORDER BY `id`");
    }
}
