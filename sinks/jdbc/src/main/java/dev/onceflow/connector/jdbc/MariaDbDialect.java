package dev.onceflow.connector.jdbc;

import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.sink.SinkContext;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * MariaDB (and MySQL's XA syntax): {@code XA START / END / PREPARE / COMMIT}, {@code XA RECOVER},
 * {@code ON DUPLICATE KEY UPDATE}. XA transactions are server-wide, not per database.
 */
final class MariaDbDialect implements SqlDialect {

    static final MariaDbDialect INSTANCE = new MariaDbDialect();

    /** An xid's gtrid is at most 64 bytes. */
    private static final int MAX_GID_BYTES = 64;
    /** ER_XAER_NOTA: "Unknown XID". Also what a commit from another session gets while the preparing one is open. */
    private static final int UNKNOWN_XID = 1397;
    /** ER_XAER_DUPID: the xid already exists. */
    private static final int DUPLICATE_XID = 1440;
    /** ER_DUP_ENTRY. */
    private static final int DUPLICATE_KEY = 1062;

    private MariaDbDialect() {
    }

    @Override
    public String name() {
        return "MariaDB";
    }

    @Override
    public boolean accepts(String url) {
        for (String scheme : List.of("jdbc:mariadb://", "jdbc:mysql://")) {
            if (url.startsWith(scheme) && url.length() > scheme.length()) {
                return true;
            }
        }
        return false;
    }

    /** A back-quoted identifier: {@code my`table} becomes {@code `my``table`}. */
    @Override
    public String quote(String name) {
        return '`' + name.replace("`", "``") + '`';
    }

    /** A string literal that reads the same with or without NO_BACKSLASH_ESCAPES: gids with a backslash are refused. */
    static String literal(String text) {
        if (text.indexOf('\\') >= 0) {
            throw new IllegalArgumentException("MariaDB transaction ids must not contain a backslash: " + text);
        }
        return '\'' + text.replace("'", "''") + '\'';
    }

    @Override
    public Map<String, String> dataSourceProperties() {
        return Map.of();
    }

    /** Binary collation, so ids that differ only in case are different rows, as in PostgreSQL. */
    @Override
    public String createTable(String table, Columns c) {
        return "CREATE TABLE IF NOT EXISTS " + quote(table) + " (" + quote(c.id()) + " VARCHAR(255) NOT NULL PRIMARY KEY, "
                + quote(c.key()) + " TEXT, " + quote(c.count()) + " BIGINT, " + quote(c.payload()) + " LONGTEXT) "
                + "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin";
    }

    @Override
    public String createCommitterTable(String table) {
        return "CREATE TABLE IF NOT EXISTS " + quote(table) + " (job VARCHAR(255) NOT NULL, sink VARCHAR(255) NOT NULL, "
                + "subtask INT NOT NULL, checkpoint_id BIGINT NOT NULL, "
                + "written_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (job, sink, subtask, checkpoint_id)) "
                + "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin";
    }

    /** MariaDB's CREATE TABLE IF NOT EXISTS holds a metadata lock: concurrent creators see the table made. */
    @Override
    public void createIfMissing(Connection connection, String table, String ddl) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(ddl);
        }
    }

    @Override
    public String tableOptions() {
        return " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin";
    }

    /**
     * A string key is a {@code VARCHAR(255)} (a key cannot be a {@code LONGTEXT}); an instant is a
     * {@code DATETIME(6)} in UTC, as {@code TIMESTAMP} ends in 2038; a float is a {@code DOUBLE},
     * which holds it exactly, as MariaDB sends {@code FLOAT} values with six significant digits.
     */
    @Override
    public String columnType(DataType type, boolean key) {
        return switch (type.kind()) {
            case BOOLEAN -> "BOOLEAN";
            case INT -> "INT";
            case LONG -> "BIGINT";
            case FLOAT, DOUBLE -> "DOUBLE";
            case DECIMAL -> "DECIMAL(" + type.precision() + ", " + type.scale() + ")";
            case STRING -> key ? "VARCHAR(255)" : "LONGTEXT";
            case BYTES -> key ? "VARBINARY(255)" : "LONGBLOB";
            case DATE -> "DATE";
            case TIME -> "TIME(6)";
            case TIMESTAMP, TIMESTAMP_TZ -> "DATETIME(6)";
            case ROW, ARRAY, MAP -> throw new IllegalArgumentException("no column type for " + type);
        };
    }

    @Override
    public Object instant(Instant instant) {
        return LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    @Override
    public String upsert(String table, List<String> columns, List<String> keyColumns) {
        StringBuilder sql = new StringBuilder(insert(table, columns)).append(" ON DUPLICATE KEY UPDATE ");
        List<String> updated = columns.stream().filter(c -> !keyColumns.contains(c)).toList();
        // with nothing else to update, a no-op assignment keeps the statement valid
        List<String> assigned = updated.isEmpty() ? keyColumns.subList(0, 1) : updated;
        for (int i = 0; i < assigned.size(); i++) {
            String column = quote(assigned.get(i));
            sql.append(i == 0 ? "" : ", ").append(column).append(" = VALUES(").append(column).append(')');
        }
        return sql.toString();
    }

    @Override
    public boolean supportsCopy() {
        return false;
    }

    /** A failed statement rolls back only itself in MariaDB, so a duplicate key can be caught. */
    @Override
    public boolean insertMarker(Connection connection, String committerTable, String job, String sink, int subtask,
            long checkpointId) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + quote(committerTable)
                + " (job, sink, subtask, checkpoint_id) VALUES (?, ?, ?, ?)")) {
            insert.setString(1, job);
            insert.setString(2, sink);
            insert.setInt(3, subtask);
            insert.setLong(4, checkpointId);
            return insert.executeUpdate() == 1;
        } catch (SQLException e) {
            if (e.getErrorCode() == DUPLICATE_KEY) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public int maxGidBytes() {
        return MAX_GID_BYTES;
    }

    /** MariaDB has no limit on prepared XA transactions to check. */
    @Override
    public void checkPreparedCapacity(Connection connection, SinkContext context) {
    }

    @Override
    public void begin(Connection connection, String gid) throws SQLException {
        connection.setAutoCommit(true); // inside XA START ... XA END every statement joins the XA transaction
        execute(connection, "XA START " + literal(gid));
    }

    @Override
    public void prepare(Connection connection, String gid) throws SQLException {
        execute(connection, "XA END " + literal(gid));
        try {
            execute(connection, "XA PREPARE " + literal(gid));
        } catch (SQLException e) {
            if (e.getErrorCode() == DUPLICATE_XID) {
                throw new IllegalStateException("XA transaction " + gid + " already exists; abortLingering should "
                        + "have rolled it back: is another job or sink using the same job name and sink uid on this "
                        + "server?", e);
            }
            throw e;
        }
    }

    @Override
    public boolean discardConnectionAfterPrepare() {
        return true;
    }

    @Override
    public void rollbackOpen(Connection connection, String gid) throws SQLException {
        try {
            execute(connection, "XA END " + literal(gid));
        } catch (SQLException e) {
            // already ended (a failed statement, or prepare's first half); the rollback below decides
        }
        execute(connection, "XA ROLLBACK " + literal(gid));
    }

    @Override
    public boolean commitPrepared(Connection connection, String gid) throws SQLException {
        try {
            execute(connection, "XA COMMIT " + literal(gid));
            return true;
        } catch (SQLException e) {
            if (e.getErrorCode() != UNKNOWN_XID) {
                throw e;
            }
            // 1397 also answers a commit while the session that prepared is still open (its close
            // may still be on its way to the server): then the xid is still listed, and the commit
            // must be tried again, not taken as done.
            if (preparedTransactions(connection, gid).contains(gid)) {
                throw new SQLException("XA COMMIT of " + gid + " got error 1397 while the xid is still prepared: the "
                        + "session that prepared it has not ended yet", "XA100", UNKNOWN_XID, e);
            }
            return false;
        }
    }

    @Override
    public void rollbackPrepared(Connection connection, String gid) throws SQLException {
        try {
            execute(connection, "XA ROLLBACK " + literal(gid));
        } catch (SQLException e) {
            if (e.getErrorCode() != UNKNOWN_XID) {
                throw e;
            }
        }
    }

    /** {@code XA RECOVER} lists every prepared xid of the server as bytes gtrid followed by bqual. */
    @Override
    public List<String> preparedTransactions(Connection connection, String prefix) throws SQLException {
        List<String> gids = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("XA RECOVER")) {
            while (result.next()) {
                int gtridLength = result.getInt("gtrid_length");
                byte[] data = result.getBytes("data");
                String gid = new String(data, 0, Math.min(gtridLength, data.length), StandardCharsets.UTF_8);
                if (gid.startsWith(prefix)) {
                    gids.add(gid);
                }
            }
        }
        return gids;
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
