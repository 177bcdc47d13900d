package dev.onceflow.connector.jdbc;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowKind;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.row.TextValues;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Rows of one schema into the columns of a table: every field to the column of its own name, or
 * to the one {@code columnsByField} gives it. Fields of nested types (row, array, map) are refused:
 * a column holds one scalar. The schema's primary key is the upsert key.
 *
 * <p>Timestamps with time zone are instants: PostgreSQL stores them in {@code timestamptz};
 * MariaDB, whose {@code TIMESTAMP} ends in 2038, gets a {@code DATETIME(6)} holding UTC.
 */
final class RowBinding implements RecordBinding<Row> {

    private final Schema schema;
    private final SqlDialect dialect;
    private final List<String> columns;
    private final List<String> keyColumns;
    private final int[] keyPositions;
    private final DataType[] types;

    private RowBinding(Schema schema, SqlDialect dialect, List<String> columns) {
        this.schema = schema;
        this.dialect = dialect;
        this.columns = List.copyOf(columns);
        this.keyPositions = schema.primaryKeyPositions();
        List<String> keys = new ArrayList<>();
        for (int position : keyPositions) {
            keys.add(columns.get(position));
        }
        this.keyColumns = List.copyOf(keys);
        this.types = schema.fields().stream().map(Field::type).toArray(DataType[]::new);
    }

    /**
     * The binding of rows of {@code schema}.
     *
     * @param columnsByField columns for fields whose column has another name
     * @throws OptionException naming the field when one has a nested type, the mapping names no
     *     field of the schema, or two fields would share a column
     */
    static RowBinding of(Schema schema, SqlDialect dialect, Map<String, String> columnsByField) {
        for (String field : columnsByField.keySet()) {
            if (schema.field(field).isEmpty()) {
                throw new OptionException("option 'columns' maps field '" + field + "', which the input does not have; "
                        + "its fields: " + String.join(", ", schema.names()));
            }
        }
        Map<String, String> fieldByColumn = new LinkedHashMap<>();
        List<String> columns = new ArrayList<>();
        for (Field field : schema.fields()) {
            if (field.type().isNested()) {
                throw new OptionException("field '" + field.name() + "' is a " + field.type().withNullable(true)
                        + "; the jdbc sink writes fields of scalar types, one per column");
            }
            String column = columnsByField.getOrDefault(field.name(), field.name());
            if (!Columns.isValidIdentifier(column)) {
                throw new OptionException("column name '" + column + "' of field '" + field.name() + "' must be 1 to "
                        + Columns.MAX_IDENTIFIER_BYTES + " bytes without NUL characters");
            }
            String other = fieldByColumn.putIfAbsent(column, field.name());
            if (other != null) {
                throw new OptionException("fields '" + other + "' and '" + field.name() + "' would both go to column '"
                        + column + "'; map one of them elsewhere with option 'columns'");
            }
            columns.add(column);
        }
        return new RowBinding(schema, dialect, columns);
    }

    Schema schema() {
        return schema;
    }

    @Override
    public List<String> columns() {
        return columns;
    }

    @Override
    public List<String> keyColumns() {
        return keyColumns;
    }

    @Override
    public void bind(PreparedStatement statement, Row row) throws SQLException {
        for (int i = 0; i < types.length; i++) {
            bind(statement, i + 1, i, row.get(i));
        }
    }

    @Override
    public void bindKey(PreparedStatement statement, Row row) throws SQLException {
        for (int k = 0; k < keyPositions.length; k++) {
            bind(statement, k + 1, keyPositions[k], row.get(keyPositions[k]));
        }
    }

    @Override
    public RowKind kind(Row row) {
        return row.kind();
    }

    /** Sets {@code parameter} to {@code value} of the field at position {@code i}. */
    private void bind(PreparedStatement statement, int parameter, int i, Object value) throws SQLException {
        if (value == null) {
            statement.setNull(parameter, sqlType(types[i]));
            return;
        }
        switch (types[i].kind()) {
            case BOOLEAN -> statement.setBoolean(parameter, (Boolean) value);
            case INT -> statement.setInt(parameter, (Integer) value);
            case LONG -> statement.setLong(parameter, (Long) value);
            case FLOAT -> statement.setFloat(parameter, (Float) value);
            case DOUBLE -> statement.setDouble(parameter, (Double) value);
            case DECIMAL -> statement.setBigDecimal(parameter, (BigDecimal) value);
            case STRING -> statement.setString(parameter, (String) value);
            case BYTES -> statement.setBytes(parameter, (byte[]) value);
            case DATE, TIME, TIMESTAMP -> statement.setObject(parameter, value);
            case TIMESTAMP_TZ -> statement.setObject(parameter, dialect.instant((Instant) value));
            case ROW, ARRAY, MAP -> throw new IllegalStateException("nested field " + schema.field(i).name());
        }
    }

    private static int sqlType(DataType type) {
        return switch (type.kind()) {
            case BOOLEAN -> Types.BOOLEAN;
            case INT -> Types.INTEGER;
            case LONG -> Types.BIGINT;
            case FLOAT -> Types.REAL;
            case DOUBLE -> Types.DOUBLE;
            case DECIMAL -> Types.NUMERIC;
            case STRING -> Types.VARCHAR;
            case BYTES -> Types.VARBINARY;
            case DATE -> Types.DATE;
            case TIME -> Types.TIME;
            case TIMESTAMP -> Types.TIMESTAMP;
            case TIMESTAMP_TZ -> Types.TIMESTAMP_WITH_TIMEZONE;
            case ROW, ARRAY, MAP -> Types.OTHER;
        };
    }

    /** PostgreSQL's COPY text: {@code \N} for null, and each value as PostgreSQL's input functions read it. */
    @Override
    public void appendCopy(StringBuilder out, Row row) {
        for (int i = 0; i < types.length; i++) {
            if (i > 0) {
                out.append('\t');
            }
            Object value = row.get(i);
            if (value == null) {
                out.append("\\N");
                continue;
            }
            switch (types[i].kind()) {
                case BOOLEAN -> out.append((Boolean) value ? 't' : 'f');
                case INT, LONG, FLOAT, DOUBLE -> out.append(value);
                case DECIMAL -> out.append(((BigDecimal) value).toPlainString());
                case STRING -> RecordBinding.appendCopyText(out, (String) value);
                // bytea's hex form, its backslash escaped for COPY
                case BYTES -> out.append("\\\\x").append(HexFormat.of().formatHex((byte[]) value));
                case DATE -> appendDate(out, (LocalDate) value, "");
                case TIME -> out.append(value);
                case TIMESTAMP -> appendDate(out, ((LocalDateTime) value).toLocalDate(),
                        " " + ((LocalDateTime) value).toLocalTime());
                case TIMESTAMP_TZ -> {
                    LocalDateTime utc = LocalDateTime.ofInstant((Instant) value, ZoneOffset.UTC);
                    appendDate(out, utc.toLocalDate(), " " + utc.toLocalTime() + "+00");
                }
                case ROW, ARRAY, MAP -> throw new IllegalStateException("nested field " + schema.field(i).name());
            }
        }
        out.append('\n');
    }

    /**
     * A date as PostgreSQL reads it: no sign before years past 9999, and years before 1 as
     * {@code BC} (ISO year 0 is 1 BC), the suffix after the time of day.
     */
    private static void appendDate(StringBuilder out, LocalDate date, String timeOfDay) {
        int year = date.getYear();
        if (year >= 1 && year <= 9999) {
            out.append(date).append(timeOfDay);
            return;
        }
        int written = year >= 1 ? year : 1 - year;
        String digits = Integer.toString(written);
        out.append("0".repeat(Math.max(0, 4 - digits.length()))).append(digits).append('-');
        if (date.getMonthValue() < 10) {
            out.append('0');
        }
        out.append(date.getMonthValue()).append('-');
        if (date.getDayOfMonth() < 10) {
            out.append('0');
        }
        out.append(date.getDayOfMonth()).append(timeOfDay);
        if (year < 1) {
            out.append(" BC");
        }
    }

    @Override
    public List<Comparable<?>> key(Row row) {
        List<Comparable<?>> key = new ArrayList<>(keyPositions.length);
        for (int position : keyPositions) {
            Object value = row.get(position);
            key.add(value instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : (Comparable<?>) value);
        }
        return key;
    }

    @Override
    public String describe(Row row) {
        if (keyPositions.length == 0) {
            return "a record (the input has no primary key to name it by)";
        }
        StringBuilder text = new StringBuilder("record ");
        for (int i = 0; i < keyPositions.length; i++) {
            int position = keyPositions[i];
            text.append(i == 0 ? "" : ", ").append(schema.field(position).name()).append(" '")
                    .append(TextValues.abbreviate(TextValues.format(types[position], row.get(position)))).append('\'');
        }
        return text.toString();
    }

    @Override
    public String createTable(SqlDialect dialect, String table) {
        List<String> definitions = new ArrayList<>();
        for (int i = 0; i < types.length; i++) {
            boolean key = keyColumns.contains(columns.get(i));
            definitions.add(dialect.quote(columns.get(i)) + " " + dialect.columnType(types[i], key)
                    + (types[i].nullable() ? "" : " NOT NULL"));
        }
        return dialect.createTable(table, definitions, keyColumns);
    }

    @Override
    public String toString() {
        return "columns=" + columns + (keyColumns.isEmpty() ? "" : ", key=" + keyColumns);
    }
}
