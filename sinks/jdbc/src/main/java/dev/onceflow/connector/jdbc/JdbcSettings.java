package dev.onceflow.connector.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceflow.spi.sink.SinkContext;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * What every mode of the JDBC sink needs to reach its table. Immutable. The password is never
 * shown: not by {@link #toString()}, not in logs or messages.
 */
record JdbcSettings(SqlDialect dialect, String url, String table, String user, String password, int batchSize,
        int poolSize, WriteMethod writeMethod, WriteMode writeMode, Optional<Duration> transactionTimeout, String committerTable,
        CreateTable createTable) {

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
        dialect.dataSourceProperties().forEach(config::addDataSourceProperty);
        if (dialect instanceof PostgresDialect) {
            // Shown in pg_stat_activity, where the suite looks for sessions left inside a transaction.
            config.addDataSourceProperty("ApplicationName", "onceflow " + context.jobName() + "/" + context.sinkUid());
        }
        transactionTimeout.ifPresent(timeout -> config.setConnectionInitSql(
                "SET idle_in_transaction_session_timeout = " + timeout.toMillis()));
        return new HikariDataSource(config);
    }

    /**
     * Creates the sink's table for {@code binding}'s records when missing and {@code createTable}
     * allows it (safe while other subtasks do the same), then checks that the table has every
     * column the records go to.
     *
     * @throws SQLException with SQLSTATE 42703 naming the first missing column
     */
    void prepareTable(Connection connection, RecordBinding<?> binding) throws SQLException {
        if (createTable == CreateTable.IF_MISSING) {
            dialect.createIfMissing(connection, table, binding.createTable(dialect, table));
        }
        TableColumns.require(connection, dialect, table, binding.columns());
    }

    /** The URL with any {@code password=} parameter's value hidden. */
    static String redactedUrl(String url) {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }

    @Override
    public String toString() {
        return "url=" + redactedUrl(url) + ", table=" + table + ", user=" + user + ", batchSize="
                + batchSize + ", poolSize=" + poolSize + ", writeMethod=" + writeMethod
                + (writeMode == WriteMode.UPSERT ? ", writeMode=UPSERT" : "")
                + transactionTimeout.map(t -> ", transactionTimeout=" + t).orElse("");
    }
}
