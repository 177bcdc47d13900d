package dev.onceflow.connector.postgrescdc;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Schema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The table a {@code postgres-cdc} source captures, as its columns and primary key read from the
 * server's catalog when the job is checked: the schema of the source's rows.
 *
 * <p>Key columns keep their {@code NOT NULL}; every other column is nullable in the rows, since a
 * delete under PostgreSQL's default replica identity carries only the key (rule CHG-1 allows
 * nulls there).
 *
 * @param schemaName the table's schema, such as {@code public}
 * @param tableName the table's name
 * @param schema the rows' schema: one field per column, in column order, keyed by the primary key
 */
record CapturedTable(String schemaName, String tableName, Schema schema) {

    /** {@code schema.table}, as Debezium's {@code table.include.list} names it. */
    String qualifiedName() {
        return schemaName + "." + tableName;
    }

    /**
     * Reads {@code qualified} ({@code schema.table}, or {@code table} in {@code public}).
     *
     * @throws OptionException naming the table, if it does not exist, has no primary key or a column
     *     of a type this source does not map
     * @throws SQLException if the catalog cannot be read
     */
    static CapturedTable read(Connection connection, String qualified, String owner) throws SQLException {
        int dot = qualified.indexOf('.');
        String schemaName = dot < 0 ? "public" : qualified.substring(0, dot);
        String tableName = dot < 0 ? qualified : qualified.substring(dot + 1);
        String named = owner + ": table '" + schemaName + "." + tableName + "'";
        List<Field> fields = new ArrayList<>();
        List<String> key = primaryKey(connection, schemaName, tableName);
        try (PreparedStatement statement = connection.prepareStatement("""
                SELECT a.attname, format_type(a.atttypid, a.atttypmod), t.typname, a.attnotnull,
                       information_schema._pg_numeric_precision(a.atttypid, a.atttypmod),
                       information_schema._pg_numeric_scale(a.atttypid, a.atttypmod)
                FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_type t ON t.oid = a.atttypid
                WHERE n.nspname = ? AND c.relname = ? AND c.relkind IN ('r', 'p') AND a.attnum > 0
                  AND NOT a.attisdropped
                ORDER BY a.attnum""")) {
            statement.setString(1, schemaName);
            statement.setString(2, tableName);
            try (ResultSet columns = statement.executeQuery()) {
                while (columns.next()) {
                    String column = columns.getString(1);
                    DataType type = type(columns.getString(3), columns.getString(2), columns.getObject(5, Integer.class),
                            columns.getObject(6, Integer.class), named + " column '" + column + "'");
                    boolean notNull = columns.getBoolean(4) && key.contains(column);
                    fields.add(Field.of(column, type.withNullable(!notNull)));
                }
            }
        }
        if (fields.isEmpty()) {
            throw new OptionException(named + " does not exist (or the user may not see it); check 'tables'");
        }
        if (key.isEmpty()) {
            throw new OptionException(named + " has no primary key; a changelog names each changed row by its key: "
                    + "add one (ALTER TABLE ... ADD PRIMARY KEY)");
        }
        return new CapturedTable(schemaName, tableName, Schema.of(fields, key));
    }

    private static List<String> primaryKey(Connection connection, String schemaName, String tableName)
            throws SQLException {
        List<String> key = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement("""
                SELECT a.attname FROM pg_index i
                JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position) ON true
                JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
                WHERE n.nspname = ? AND c.relname = ? AND i.indisprimary
                ORDER BY k.position""")) {
            statement.setString(1, schemaName);
            statement.setString(2, tableName);
            try (ResultSet result = statement.executeQuery()) {
                while (result.next()) {
                    key.add(result.getString(1));
                }
            }
        }
        return key;
    }

    /**
     * The mapping the docs' table shows. Numerics need a declared precision (at most
     * {@link DataType#MAX_DECIMAL_PRECISION}): an unconstrained {@code numeric} has no scale a
     * decimal could keep.
     */
    static DataType type(String typeName, String declared, Integer precision, Integer scale, String named) {
        return switch (typeName) {
            case "bool" -> DataType.BOOLEAN;
            case "int2", "int4" -> DataType.INT;
            case "int8" -> DataType.LONG;
            case "float4" -> DataType.FLOAT;
            case "float8" -> DataType.DOUBLE;
            case "text", "varchar", "bpchar", "uuid", "json", "jsonb" -> DataType.STRING;
            case "bytea" -> DataType.BYTES;
            case "date" -> DataType.DATE;
            case "timestamp" -> DataType.TIMESTAMP;
            case "timestamptz" -> DataType.TIMESTAMP_TZ;
            case "numeric" -> {
                if (precision == null || precision > DataType.MAX_DECIMAL_PRECISION) {
                    throw new OptionException(named + " is " + declared + "; give it a precision of at most "
                            + DataType.MAX_DECIMAL_PRECISION + " (numeric(p, s)) so its values map to a decimal");
                }
                yield DataType.decimal(precision, scale == null ? 0 : scale);
            }
            default -> throw new OptionException(named + " is of type " + declared + ", which this source does not "
                    + "map; supported: boolean, smallint, int, bigint, real, double precision, numeric(p, s), text, "
                    + "varchar, char, uuid, json, jsonb, bytea, date, timestamp, timestamptz");
        };
    }
}
