package dev.onceflow.connector.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceflow.spi.sink.SinkContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;

/**
 * What every mode of the JDBC sink needs to reach its table. Immutable. The password is never
 * shown: not by {@link #toString()}, not in logs or messages.
 */
record JdbcSettings(String url, String table, String user, String password, Columns columns, int batchSize,
        int poolSize, WriteMethod writeMethod, Optional<Duration> transactionTimeout, String committerTable) {

    /** Opens the pool of one subtask; {@code role} tells pools of one subtask apart in the server's activity view. */
    HikariDataSource openPool(SinkContext context, String role) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        if (user != null) {
            config.setUsername(user);
        }
        if (password != null) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(0);
        config.setPoolName("onceflow-jdbc-" + role + "-" + context.sinkUid() + "-" + context.subtaskIndex());
        // Rewrites a batch of INSERTs into multi-row INSERTs: about 3x faster on PostgreSQL.
        config.addDataSourceProperty("reWriteBatchedInserts", "true");
        config.addDataSourceProperty("ApplicationName", "onceflow " + context.jobName() + "/" + context.sinkUid());
        transactionTimeout.ifPresent(timeout -> config.setConnectionInitSql(
                "SET idle_in_transaction_session_timeout = " + timeout.toMillis()));
        return new HikariDataSource(config);
    }

    /** Creates the sink's table when missing. */
    void createTableIfMissing(Statement statement) throws SQLException {
        createIfMissing(statement, table, columns.createTable(table));
    }

    /**
     * Runs {@code CREATE TABLE IF NOT EXISTS} under a transaction-scoped advisory lock on the
     * table's name: IF NOT EXISTS alone is not atomic, and writers of all subtasks start together
     * (the loser would fail on the table's row type, 42710 or 23505).
     */
    static void createIfMissing(Statement statement, String table, String createIfNotExistsSql) throws SQLException {
        Connection connection = statement.getConnection();
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
                lock.setString(1, "onceflow create table " + table);
                lock.execute();
            }
            statement.execute(createIfNotExistsSql);
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    /** The URL with any {@code password=} parameter's value hidden. */
    static String redactedUrl(String url) {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }

    @Override
    public String toString() {
        return "url=" + redactedUrl(url) + ", table=" + table + ", user=" + user + ", columns=" + columns + ", batchSize="
                + batchSize + ", poolSize=" + poolSize + ", writeMethod=" + writeMethod
                + transactionTimeout.map(t -> ", transactionTimeout=" + t).orElse("");
    }
}
