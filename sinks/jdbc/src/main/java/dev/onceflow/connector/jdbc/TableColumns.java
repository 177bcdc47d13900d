package dev.onceflow.connector.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** The columns a table has, read the way the sink's statements will see it: by its quoted name. */
final class TableColumns {

    /** SQLSTATE of an undefined column, as PostgreSQL reports one. */
    static final String UNDEFINED_COLUMN = "42703";

    private TableColumns() {
    }

    /**
     * Fails unless {@code table} exists and has every column of {@code wanted}. Column names
     * compare exactly on PostgreSQL (they are quoted) and ignoring case on MariaDB, as each
     * database resolves them.
     *
     * @throws SQLException one line naming the table and the first missing column, or saying the
     *     table does not exist
     */
    static void require(Connection connection, SqlDialect dialect, String table, List<String> wanted)
            throws SQLException {
        List<String> present = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet empty = statement.executeQuery("SELECT * FROM " + dialect.quote(table) + " WHERE 1 = 0")) {
            ResultSetMetaData metadata = empty.getMetaData();
            for (int i = 1; i <= metadata.getColumnCount(); i++) {
                present.add(metadata.getColumnName(i));
            }
        } catch (SQLException e) {
            throw new SQLException("cannot read the columns of table " + table + " in " + dialect.name()
                    + " (does it exist? with create-table: never the sink does not create it): " + e.getMessage(),
                    e.getSQLState(), e);
        }
        for (String column : wanted) {
            boolean found = present.stream().anyMatch(p -> dialect instanceof MariaDbDialect
                    ? p.equalsIgnoreCase(column) : p.equals(column));
            if (!found) {
                throw new SQLException("table " + table + " has no column '" + column + "' for the sink to write; "
                        + "its columns: " + String.join(", ", present)
                        + ". Map fields to other columns with option 'columns: field=column, ...'", UNDEFINED_COLUMN);
            }
        }
    }
}
