package dev.onceflow.connector.jdbc;

import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.sink.SinkContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** PostgreSQL: {@code PREPARE TRANSACTION} / {@code COMMIT PREPARED}, {@code ON CONFLICT}, COPY. */
final class PostgresDialect implements SqlDialect {

    static final PostgresDialect INSTANCE = new PostgresDialect();

    /** PostgreSQL's GIDSIZE is 200 bytes including the terminating NUL. */
    private static final int MAX_GID_BYTES = 199;

    private PostgresDialect() {
    }

    @Override
    public String name() {
        return "PostgreSQL";
    }

    @Override
    public boolean accepts(String url) {
        return url.startsWith("jdbc:postgresql://") && url.length() > "jdbc:postgresql://".length();
    }

    @Override
    public String quote(String name) {
        return PostgresSyntax.identifier(name);
    }

    @Override
    public Map<String, String> dataSourceProperties() {
        // Rewrites a batch of INSERTs into multi-row INSERTs: about 3x faster on PostgreSQL.
        return Map.of("reWriteBatchedInserts", "true");
    }

    @Override
    public String createTable(String table, Columns c) {
        return "CREATE TABLE IF NOT EXISTS " + quote(table) + " (" + quote(c.id()) + " text PRIMARY KEY, "
                + quote(c.key()) + " text, " + quote(c.count()) + " bigint, " + quote(c.payload()) + " text)";
    }

    @Override
    public String createCommitterTable(String table) {
        return "CREATE TABLE IF NOT EXISTS " + quote(table) + " (job text NOT NULL, sink text NOT NULL, "
                + "subtask int NOT NULL, checkpoint_id bigint NOT NULL, written_at timestamptz NOT NULL DEFAULT now(), "
                + "PRIMARY KEY (job, sink, subtask, checkpoint_id))";
    }

    /**
     * Under a transaction-scoped advisory lock on the table's name: IF NOT EXISTS alone is not
     * atomic, and writers of all subtasks start together (the loser would fail on the table's row
     * type, 42710 or 23505).
     */
    @Override
    public void createIfMissing(Connection connection, String table, String ddl) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement();
                PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
            lock.setString(1, "onceflow create table " + table);
            lock.execute();
            statement.execute(ddl);
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    @Override
    public String tableOptions() {
        return "";
    }

    @Override
    public String columnType(DataType type, boolean key) {
        return switch (type.kind()) {
            case BOOLEAN -> "boolean";
            case INT -> "integer";
            case LONG -> "bigint";
            case FLOAT -> "real";
            case DOUBLE -> "double precision";
            case DECIMAL -> "numeric(" + type.precision() + ", " + type.scale() + ")";
            case STRING -> "text";
            case BYTES -> "bytea";
            case DATE -> "date";
            case TIME -> "time";
            case TIMESTAMP -> "timestamp";
            case TIMESTAMP_TZ -> "timestamptz";
            case ROW, ARRAY, MAP -> throw new IllegalArgumentException("no column type for " + type);
        };
    }

    @Override
    public Object instant(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }

    @Override
    public String upsert(String table, List<String> columns, List<String> keyColumns) {
        StringBuilder sql = new StringBuilder(insert(table, columns)).append(" ON CONFLICT (")
                .append(columnList(keyColumns)).append(')');
        List<String> updated = columns.stream().filter(c -> !keyColumns.contains(c)).toList();
        if (updated.isEmpty()) {
            return sql.append(" DO NOTHING").toString();
        }
        sql.append(" DO UPDATE SET ");
        for (int i = 0; i < updated.size(); i++) {
            String column = quote(updated.get(i));
            sql.append(i == 0 ? "" : ", ").append(column).append(" = EXCLUDED.").append(column);
        }
        return sql.toString();
    }

    @Override
    public boolean supportsCopy() {
        return true;
    }

    /** ON CONFLICT DO NOTHING: a failed statement would abort the whole PostgreSQL transaction. */
    @Override
    public boolean insertMarker(Connection connection, String committerTable, String job, String sink, int subtask,
            long checkpointId) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + quote(committerTable)
                + " (job, sink, subtask, checkpoint_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
            insert.setString(1, job);
            insert.setString(2, sink);
            insert.setInt(3, subtask);
            insert.setLong(4, checkpointId);
            return insert.executeUpdate() == 1;
        }
    }

    @Override
    public int maxGidBytes() {
        return MAX_GID_BYTES;
    }

    @Override
    public void checkPreparedCapacity(Connection connection, SinkContext context) throws SQLException {
        int maxPrepared;
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SHOW max_prepared_transactions")) {
            result.next();
            maxPrepared = Integer.parseInt(result.getString(1).trim());
        }
        int needed = JdbcSinkWriter.requiredPreparedTransactions(context);
        if (maxPrepared < needed) {
            throw new IllegalStateException("PostgreSQL max_prepared_transactions is " + maxPrepared
                    + "; set it to at least " + needed + " in postgresql.conf and restart the server "
                    + "(exactly-once mode prepares up to parallelism " + context.parallelism()
                    + " x (max concurrent checkpoints " + context.maxConcurrentCheckpoints()
                    + " + 1) transactions), or use mode write-ahead, which needs none");
        }
    }

    @Override
    public void begin(Connection connection, String gid) throws SQLException {
        connection.setAutoCommit(false);
    }

    @Override
    public void prepare(Connection connection, String gid) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("PREPARE TRANSACTION " + PostgresSyntax.literal(gid));
        } catch (SQLException e) {
            if (PostgresSyntax.DUPLICATE_GID.equals(e.getSQLState())) {
                throw new IllegalStateException("prepared transaction " + gid + " already exists; abortLingering "
                        + "should have rolled it back: is another job or sink using the same job name and sink uid "
                        + "on this database?", e);
            }
            throw e;
        }
    }

    @Override
    public boolean discardConnectionAfterPrepare() {
        return false;
    }

    @Override
    public void rollbackOpen(Connection connection, String gid) throws SQLException {
        connection.rollback();
    }

    /** COMMIT PREPARED cannot run inside a transaction block (25001): the caller's connection auto-commits. */
    @Override
    public boolean commitPrepared(Connection connection, String gid) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("COMMIT PREPARED " + PostgresSyntax.literal(gid));
            return true;
        } catch (SQLException e) {
            if (PostgresSyntax.UNKNOWN_GID.equals(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public void rollbackPrepared(Connection connection, String gid) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("ROLLBACK PREPARED " + PostgresSyntax.literal(gid));
        } catch (SQLException e) {
            if (!PostgresSyntax.UNKNOWN_GID.equals(e.getSQLState())) {
                throw e;
            }
        }
    }

    @Override
    public List<String> preparedTransactions(Connection connection, String prefix) throws SQLException {
        List<String> gids = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement("SELECT gid FROM pg_prepared_xacts "
                + "WHERE database = current_database() AND gid LIKE ? ESCAPE '\\'")) {
            query.setString(1, PostgresSyntax.startsWithPattern(prefix));
            try (ResultSet result = query.executeQuery()) {
                while (result.next()) {
                    gids.add(result.getString(1));
                }
            }
        }
        return gids;
    }
}
