package dev.onceflow.connector.jdbc;

import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link ChangelogCases} on a real PostgreSQL: upserts by {@code INSERT ... ON CONFLICT DO UPDATE}. */
class PostgresChangelogTest extends ChangelogCases {

    @RegisterExtension
    static final PostgresServer server = new PostgresServer(16);

    @AfterEach
    void noPreparedTransactionsOutliveATest() throws SQLException {
        server.rollbackAllPrepared();
    }

    @Override
    String url() {
        return server.url();
    }

    @Override
    String user() {
        return "postgres";
    }

    @Override
    List<List<String>> rows(String table) throws SQLException {
        return server.query("SELECT \"id\", \"owner\", \"balance\" FROM " + PostgresSyntax.identifier(table)
                + " ORDER BY \"id\"");
    }
}
