package dev.onceflow.connector.jdbc;

import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Rows of every scalar type, with the values databases get wrong first, and how to read them back. */
final class TypedRows {

    static final Schema SCHEMA = Schema.of(List.of(
            Field.of("id", DataType.LONG),
            Field.of("flag", DataType.BOOLEAN),
            Field.of("small", DataType.INT),
            Field.of("big", DataType.LONG),
            Field.of("ratio", DataType.FLOAT),
            Field.of("measure", DataType.DOUBLE),
            Field.of("amount", DataType.decimal(38, 10)),
            Field.of("label", DataType.STRING),
            Field.of("blob", DataType.BYTES),
            Field.of("day", DataType.DATE),
            Field.of("clock", DataType.TIME),
            Field.of("local_time", DataType.TIMESTAMP),
            Field.of("instant", DataType.TIMESTAMP_TZ)), List.of("id"));

    private TypedRows() {
    }

    /**
     * Rows any database takes; with {@code extremes}, also what only PostgreSQL holds (NaN and
     * infinities, dates before year 1000 and after 9999, BC).
     */
    static List<Row> rows(boolean extremes) {
        byte[] everyByte = new byte[256];
        for (int i = 0; i < everyByte.length; i++) {
            everyByte[i] = (byte) i;
        }
        List<Row> rows = new ArrayList<>();
        rows.add(Row.of(SCHEMA, 1L, true, Integer.MIN_VALUE, Long.MAX_VALUE, 1.5f, -2.25e300,
                new BigDecimal("9999999999999999999999999999.9999999999"),
                "tab\t line\n return\r back\\slash \\N ü 😀 'single' \"double\"", everyByte,
                LocalDate.of(2026, 12, 6), LocalTime.of(23, 59, 59, 999_999_000),
                LocalDateTime.of(2026, 12, 6, 12, 30, 5, 123_456_000), Instant.parse("2026-12-06T11:30:05.123456Z")));
        rows.add(Row.of(SCHEMA, 2L, false, Integer.MAX_VALUE, Long.MIN_VALUE, Float.MAX_VALUE, Double.MAX_VALUE,
                new BigDecimal("-0.0000000001"), "", new byte[0], LocalDate.of(1000, 1, 1), LocalTime.MIDNIGHT,
                LocalDateTime.of(1970, 1, 1, 0, 0), Instant.EPOCH));
        rows.add(Row.of(SCHEMA, 3L, null, null, null, null, null, null, null, null, null, null, null, null));
        rows.add(Row.of(SCHEMA, 4L, true, 0, 0L, -0.1f, 0.1, new BigDecimal("0E-10"), "\\", new byte[] {'\\', '\t'},
                LocalDate.of(9999, 12, 31), LocalTime.of(0, 0, 0, 1_000), LocalDateTime.of(9999, 12, 31, 23, 59, 59),
                Instant.parse("2038-01-19T03:14:08Z")));
        if (extremes) {
            rows.add(Row.of(SCHEMA, 5L, true, 1, 1L, Float.NaN, Double.POSITIVE_INFINITY, BigDecimal.ONE.setScale(10),
                    "x", new byte[] {0}, LocalDate.of(0, 2, 28), LocalTime.NOON, LocalDateTime.of(-44, 3, 15, 12, 0),
                    Instant.parse("-0044-03-15T12:00:00Z")));
            rows.add(Row.of(SCHEMA, 6L, false, 2, 2L, Float.NEGATIVE_INFINITY, Double.NaN,
                    BigDecimal.TEN.setScale(10), "y", new byte[] {-1}, LocalDate.of(10_000, 1, 1),
                    LocalTime.of(1, 2, 3), LocalDateTime.of(12_345, 6, 7, 8, 9, 10),
                    Instant.parse("+12345-06-07T08:09:10Z")));
        }
        return rows;
    }

    /**
     * The row at the result's current position, read back with the Java type of each field.
     *
     * @param instantsInUtcDateTimes MariaDB: the instant column is a DATETIME holding UTC
     */
    static Row read(ResultSet result, boolean instantsInUtcDateTimes) throws SQLException {
        Instant instant;
        if (instantsInUtcDateTimes) {
            LocalDateTime utc = result.getObject("instant", LocalDateTime.class);
            instant = utc == null ? null : utc.toInstant(java.time.ZoneOffset.UTC);
        } else {
            OffsetDateTime offset = result.getObject("instant", OffsetDateTime.class);
            instant = offset == null ? null : offset.toInstant();
        }
        return Row.of(SCHEMA, result.getObject("id", Long.class), result.getObject("flag", Boolean.class),
                result.getObject("small", Integer.class), result.getObject("big", Long.class),
                result.getObject("ratio", Float.class), result.getObject("measure", Double.class),
                result.getBigDecimal("amount"), result.getString("label"), result.getBytes("blob"),
                result.getObject("day", LocalDate.class), result.getObject("clock", LocalTime.class),
                result.getObject("local_time", LocalDateTime.class), instant);
    }

    /** Field by field, so that a failure names the field; bytes by content. */
    static String difference(Row expected, Row actual) {
        for (int i = 0; i < SCHEMA.size(); i++) {
            Object e = expected.get(i);
            Object a = actual.get(i);
            boolean same = e instanceof byte[] eb ? a instanceof byte[] ab && Arrays.equals(eb, ab) : java.util.Objects.equals(e, a);
            if (!same) {
                return "row " + expected.get(0) + ", field " + SCHEMA.field(i).name() + ": wrote " + text(e) + ", read "
                        + text(a);
            }
        }
        return null;
    }

    private static String text(Object value) {
        return value instanceof byte[] bytes ? Arrays.toString(bytes) : String.valueOf(value);
    }
}
