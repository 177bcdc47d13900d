package dev.onceflow.conformance.format;

import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A schema with a field of every type, and rows of it at the edges of each type: nulls, empty
 * strings and collections, unicode outside the basic plane, quotes, commas, tabs and line breaks
 * in text, the largest and smallest numbers, decimals at full precision, negative and sub-second
 * times, dates before 1970 and at year 9999. Format authors use them through
 * {@link FormatConformanceSuite}, or directly in their own tests.
 */
public final class TestRows {

    private TestRows() {
    }

    public static final Schema ITEM = Schema.of(Field.of("sku", DataType.STRING.notNull()), Field.of("qty", DataType.INT));

    /** Every kind once, nullable, plus a not-null key and nested types. */
    public static final Schema EVERY_TYPE = Schema.of(List.of(
            Field.of("id", DataType.LONG),
            Field.of("flag", DataType.BOOLEAN),
            Field.of("small", DataType.INT),
            Field.of("ratio", DataType.FLOAT),
            Field.of("score", DataType.DOUBLE),
            Field.of("amount", DataType.decimal(38, 10)),
            Field.of("name", DataType.STRING),
            Field.of("blob", DataType.BYTES),
            Field.of("day", DataType.DATE),
            Field.of("at_time", DataType.TIME),
            Field.of("local_ts", DataType.TIMESTAMP),
            Field.of("instant", DataType.TIMESTAMP_TZ),
            Field.of("item", DataType.row(ITEM)),
            Field.of("tags", DataType.array(DataType.STRING)),
            Field.of("counts", DataType.map(DataType.STRING, DataType.LONG))), List.of("id"));

    /** A row with every field set to a value that is awkward for some format. */
    public static Row full(long id) {
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("zeta", 26L);
        counts.put("älpha, \"quoted\"", -1L);
        counts.put("none", null);
        return Row.of(EVERY_TYPE, id, true, Integer.MIN_VALUE, 1.5f, -0.1, new BigDecimal("-1234567890123456789012345678.0123456789"),
                "naïve, \"quoted\"\ttab\nline\r\nbreaks 日本 😀", new byte[] {0, -1, 127, -128, 10},
                LocalDate.of(1969, 12, 31), LocalTime.of(23, 59, 58, 123_456_000),
                LocalDateTime.of(2026, 12, 6, 10, 0, 0, 1_000), Instant.parse("1970-01-01T00:00:00.000001Z"),
                Row.of(ITEM, "sku-1", 3), Arrays.asList("a", null, ""), counts);
    }

    /** The three rows: {@link #full}, {@link #nulls} and {@link #extremes}, with ids 1, 2, 3. */
    public static List<Row> all() {
        return List.of(full(1), nulls(2), extremes(3));
    }

    /**
     * {@link #all()} with only the fields of {@code schema}, whose fields must be fields of
     * {@link #EVERY_TYPE} (same names and types), for formats that represent only some types.
     */
    public static List<Row> projectedTo(Schema schema) {
        return all().stream().map(row -> {
            Object[] values = new Object[schema.size()];
            for (int i = 0; i < values.length; i++) {
                values[i] = row.get(schema.field(i).name());
            }
            return Row.of(schema, values);
        }).toList();
    }

    /** The fields of {@link #EVERY_TYPE} that are not rows, arrays or maps, keyed by {@code id}. */
    public static final Schema SCALARS = Schema.of(EVERY_TYPE.fields().stream().filter(f -> !f.type().isNested())
            .toList(), List.of("id"));

    /** A row of only nulls, but its key. */
    public static Row nulls(long id) {
        Object[] values = new Object[EVERY_TYPE.size()];
        values[0] = id;
        return Row.of(EVERY_TYPE, values);
    }

    /** A row of zeros, empties and the largest values. */
    public static Row extremes(long id) {
        return Row.of(EVERY_TYPE, id, false, Integer.MAX_VALUE, Float.MAX_VALUE, Double.MIN_VALUE,
                new BigDecimal("9999999999999999999999999999.9999999999"), "", new byte[0], LocalDate.of(9999, 12, 31), LocalTime.MIDNIGHT,
                LocalDateTime.of(1, 1, 1, 0, 0), Instant.parse("2262-04-11T23:47:16.854775Z"),
                Row.of(ITEM, "", null), List.of(), Map.of());
    }
}
