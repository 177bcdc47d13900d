package dev.onceflow.connector.jdbc;

import dev.onceflow.testing.postgres.EmbeddedPostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real PostgreSQL server for one test class, listening on localhost only:
 * {@code @RegisterExtension static final PostgresServer server = new PostgresServer(64);}
 */
final class PostgresServer implements BeforeAllCallback, AfterAllCallback {

    private final int maxPreparedTransactions;
    private EmbeddedPostgresServer postgres;

    /** @param maxPreparedTransactions the server's {@code max_prepared_transactions}; PostgreSQL's default is 0 */
    PostgresServer(int maxPreparedTransactions) {
        this.maxPreparedTransactions = maxPreparedTransactions;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        postgres = EmbeddedPostgresServer.start(
                Map.of("max_prepared_transactions", Integer.toString(maxPreparedTransactions)));
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    String url() {
        return postgres.url();
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), "postgres", "");
    }

    List<List<String>> query(String sql) throws SQLException {
        return JdbcTestSupport.query(connect(), sql);
    }

    List<String> preparedGids() throws SQLException {
        return query("SELECT gid FROM pg_prepared_xacts ORDER BY gid").stream().map(row -> row.get(0)).toList();
    }

    /** Leaves an empty prepared transaction named {@code gid}, as a dead writer would. */
    void prepare(String gid) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            statement.execute("PREPARE TRANSACTION '" + gid.replace("'", "''") + "'");
        }
    }

    void rollbackAllPrepared() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            for (String gid : preparedGids()) {
                statement.execute("ROLLBACK PREPARED '" + gid.replace("'", "''") + "'");
            }
        }
    }
}
