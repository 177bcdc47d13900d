package dev.onceflow.connector.jdbc;

import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.row.DataType;
import java.sql.Connection;
import java.time.Instant;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * What differs between the databases the sink writes to: quoting, DDL, upserts, and how a
 * transaction is prepared and finished from another connection (PostgreSQL's
 * {@code PREPARE TRANSACTION} or MariaDB's XA). Stateless; one instance per database kind.
 */
sealed interface SqlDialect permits PostgresDialect, MariaDbDialect {

    /** The dialect of a JDBC URL, or empty when no supported database uses it. */
    static java.util.Optional<SqlDialect> forUrl(String url) {
        if (PostgresDialect.INSTANCE.accepts(url)) {
            return java.util.Optional.of(PostgresDialect.INSTANCE);
        }
        if (MariaDbDialect.INSTANCE.accepts(url)) {
            return java.util.Optional.of(MariaDbDialect.INSTANCE);
        }
        return java.util.Optional.empty();
    }

    /**
     * Which part of {@code url} keeps every dialect from serving it, or null if one does. Repeats
     * no more of the URL than its database name after {@code jdbc:} (a few letters): the rest may
     * hold a user and password, in the query or before an '@'.
     */
    static String urlProblem(String url) {
        if (forUrl(url).isPresent()) {
            return null;
        }
        if (!url.startsWith("jdbc:")) {
            return "does not start with 'jdbc:'";
        }
        int colon = url.indexOf(':', "jdbc:".length());
        String database = colon < 0 ? "" : url.substring("jdbc:".length(), colon);
        if (!database.matches("[A-Za-z0-9]{1,20}")) {
            return "names no database after 'jdbc:' (such as postgresql or mariadb)";
        }
        String prefix = "jdbc:" + database + ":";
        if (!List.of("postgresql", "mariadb", "mysql").contains(database)) {
            return "is for '" + prefix + "', a database this sink does not write to";
        }
        if (!url.startsWith(prefix + "//")) {
            return "has no '//' and host after '" + prefix + "'";
        }
        return "names no host after '" + prefix + "//'";
    }

    /** What the URL must look like, for error messages. */
    String SUPPORTED_URLS = "jdbc:postgresql://host:5432/database or jdbc:mariadb://host:3306/database";

    /** The database's name, for messages. */
    String name();

    boolean accepts(String url);

    /** One quoted identifier, whatever characters {@code name} has. */
    String quote(String name);

    /** Driver properties the pool sets (batch rewriting and the like). */
    Map<String, String> dataSourceProperties();

    /** {@code CREATE TABLE IF NOT EXISTS} for events, in the columns {@code columns} names. */
    String createTable(String table, Columns columns);

    /**
     * {@code CREATE TABLE IF NOT EXISTS} of the given column definitions (quoted name, type,
     * constraint), with {@code keyColumns} as the primary key unless empty.
     */
    default String createTable(String table, List<String> columnDefinitions, List<String> keyColumns) {
        StringBuilder ddl = new StringBuilder("CREATE TABLE IF NOT EXISTS ").append(quote(table)).append(" (")
                .append(String.join(", ", columnDefinitions));
        if (!keyColumns.isEmpty()) {
            ddl.append(", PRIMARY KEY (").append(columnList(keyColumns)).append(')');
        }
        return ddl.append(')').append(tableOptions()).toString();
    }

    /** What follows the column list of a {@code CREATE TABLE}: engine and character set, where the database has them. */
    String tableOptions();

    /** The column type a field of {@code type} is created with; {@code key} for a primary key column. */
    String columnType(DataType type, boolean key);

    /** The parameter value of an instant for a column {@link #columnType} made for timestamptz. */
    Object instant(Instant instant);

    /** The quoted names, comma separated. */
    default String columnList(List<String> columns) {
        StringBuilder list = new StringBuilder();
        for (String column : columns) {
            list.append(list.length() == 0 ? "" : ", ").append(quote(column));
        }
        return list.toString();
    }

    /** An insert of one row into {@code columns}, in that order. */
    default String insert(String table, List<String> columns) {
        return "INSERT INTO " + quote(table) + " (" + columnList(columns) + ") VALUES ("
                + String.join(", ", java.util.Collections.nCopies(columns.size(), "?")) + ")";
    }

    /** A delete of the row whose {@code keyColumns} have the values of parameters 1 to n (CHG-4). */
    default String delete(String table, List<String> keyColumns) {
        StringBuilder where = new StringBuilder();
        for (String column : keyColumns) {
            where.append(where.length() == 0 ? "" : " AND ").append(quote(column)).append(" = ?");
        }
        return "DELETE FROM " + quote(table) + " WHERE " + where;
    }

    /** {@code CREATE TABLE IF NOT EXISTS} for the write-ahead mode's markers. */
    String createCommitterTable(String table);

    /** Runs a {@code CREATE ... IF NOT EXISTS} safely while other subtasks may run the same one. */
    void createIfMissing(Connection connection, String table, String ddl) throws SQLException;

    /**
     * An insert of one row into {@code columns} that overwrites the row with the same values of
     * {@code keyColumns} (a primary key or unique key of the table).
     */
    String upsert(String table, List<String> columns, List<String> keyColumns);

    /** Whether {@code COPY ... FROM STDIN} is available. */
    boolean supportsCopy();

    /**
     * Inserts a write-ahead marker into the connection's current transaction without breaking it
     * when the marker exists. {@code values}: job, sink uid, subtask, checkpoint id.
     *
     * @return whether it was new
     */
    boolean insertMarker(Connection connection, String committerTable, String job, String sink, int subtask,
            long checkpointId) throws SQLException;

    // ---------------------------------------------------------------- two-phase commit

    /** The longest global transaction id the database accepts, in UTF-8 bytes. */
    int maxGidBytes();

    /** Fails with a one-line message when the server cannot hold the prepared transactions this sink needs. */
    void checkPreparedCapacity(Connection connection, SinkContext context) throws SQLException;

    /** Starts the transaction {@code gid} on a fresh connection from the pool. */
    void begin(Connection connection, String gid) throws SQLException;

    /** Prepares it: from now on it survives this connection and the server's restart. */
    void prepare(Connection connection, String gid) throws SQLException;

    /**
     * Whether the connection that prepared a transaction must be discarded rather than reused: on
     * MariaDB another connection cannot commit the transaction while it is open.
     */
    boolean discardConnectionAfterPrepare();

    /** Ends the open (not prepared) transaction {@code gid} without committing; errors are the caller's to ignore. */
    void rollbackOpen(Connection connection, String gid) throws SQLException;

    /**
     * Commits the prepared transaction {@code gid} from an auto-commit connection.
     *
     * @return {@code false} when no prepared transaction has that id (it was committed before)
     */
    boolean commitPrepared(Connection connection, String gid) throws SQLException;

    /** Rolls back the prepared transaction {@code gid}, if it exists. */
    void rollbackPrepared(Connection connection, String gid) throws SQLException;

    /** The ids of prepared transactions in this database that start with {@code prefix}. */
    List<String> preparedTransactions(Connection connection, String prefix) throws SQLException;
}
