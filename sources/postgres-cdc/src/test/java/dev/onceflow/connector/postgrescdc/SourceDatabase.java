package dev.onceflow.connector.postgrescdc;

import dev.onceflow.testing.postgres.EmbeddedPostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A table's rows read back for comparison: key (the first column) to the other columns' text. */
final class SourceDatabase {

    private final EmbeddedPostgresServer server;

    SourceDatabase(EmbeddedPostgresServer server) {
        this.server = server;
    }

    /** A server with logical decoding, as the source needs it. */
    static EmbeddedPostgresServer startLogical() throws java.io.IOException {
        return EmbeddedPostgresServer.start(Map.of("wal_level", "logical", "max_replication_slots", "8",
                "max_wal_senders", "8"));
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(server.url(), "postgres", "");
    }

    void execute(String... statements) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    /**
     * Every row of {@code select} (whose first column is the key), each column as text (PostgreSQL's
     * own output of the value, so types compare exactly).
     */
    Map<Long, List<String>> rows(String select) throws SQLException {
        Map<Long, List<String>> rows = new TreeMap<>();
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(select)) {
            ResultSetMetaData meta = result.getMetaData();
            while (result.next()) {
                List<String> values = new ArrayList<>();
                for (int i = 2; i <= meta.getColumnCount(); i++) {
                    values.add(result.getString(i));
                }
                rows.put(result.getLong(1), values);
            }
        }
        return rows;
    }

    long count(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getLong(1);
        }
    }
}
