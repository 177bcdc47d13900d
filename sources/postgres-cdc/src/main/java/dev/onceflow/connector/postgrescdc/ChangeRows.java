package dev.onceflow.connector.postgrescdc;

import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowKind;
import dev.onceflow.spi.row.Schema;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Makes rows of Debezium's change events (the {@code before}/{@code after}/{@code op} envelope):
 * a snapshot read ({@code r}) and a create ({@code c}) are an {@code INSERT}; an update
 * ({@code u}) an {@code UPDATE_BEFORE} of its before image, when the table's replica identity
 * gives one, and an {@code UPDATE_AFTER}; a delete ({@code d}) a {@code DELETE} carrying the key
 * (its other fields null). Values arrive as the engine settings of {@link ChangeReader} make them.
 */
final class ChangeRows {

    private final Schema schema;
    private final int[] keyPositions;

    ChangeRows(Schema schema) {
        this.schema = schema;
        this.keyPositions = schema.primaryKeyPositions();
    }

    /** The rows of one change event, in order; none for an event that is not a row change. */
    List<Row> of(SourceRecord record) {
        if (!(record.value() instanceof Struct envelope) || envelope.schema().field("op") == null) {
            return List.of(); // heartbeats, transaction markers, tombstones
        }
        String op = envelope.getString("op");
        Struct before = envelope.getStruct("before");
        Struct after = envelope.getStruct("after");
        List<Row> rows = new ArrayList<>(2);
        switch (op) {
            case "r", "c" -> rows.add(row(after, false));
            case "u" -> {
                if (before != null) {
                    rows.add(row(before, false).withKind(RowKind.UPDATE_BEFORE));
                }
                rows.add(row(after, false).withKind(RowKind.UPDATE_AFTER));
            }
            case "d" -> rows.add(row(before, true).withKind(RowKind.DELETE));
            default -> {
                // "t" (truncate) and "m" (message) are not row changes; Debezium skips truncates by default.
            }
        }
        return rows;
    }

    private Row row(Struct image, boolean keyOnly) {
        Object[] values = new Object[schema.size()];
        for (int i = 0; i < values.length; i++) {
            if (keyOnly && !isKey(i)) {
                continue;
            }
            Field field = schema.field(i);
            org.apache.kafka.connect.data.Field column = image.schema().field(field.name());
            Object raw = column == null ? null : image.get(column);
            values[i] = raw == null ? null : value(field.type(), column.schema().name(), raw);
        }
        return Row.of(schema, values);
    }

    private boolean isKey(int position) {
        for (int key : keyPositions) {
            if (key == position) {
                return true;
            }
        }
        return false;
    }

    /** One value as Debezium gives it, as the Java value of {@code type}. */
    static Object value(DataType type, String logicalName, Object raw) {
        return switch (type.kind()) {
            case INT -> ((Number) raw).intValue();
            case LONG -> ((Number) raw).longValue();
            case FLOAT -> ((Number) raw).floatValue();
            case DOUBLE -> ((Number) raw).doubleValue();
            case DECIMAL -> (raw instanceof BigDecimal d ? d : new BigDecimal(raw.toString())).setScale(type.scale());
            case BYTES -> raw instanceof ByteBuffer buffer ? bytes(buffer) : raw;
            case DATE -> raw instanceof java.util.Date date
                    ? LocalDate.ofEpochDay(Math.floorDiv(date.getTime(), 86_400_000L))
                    : LocalDate.ofEpochDay(((Number) raw).longValue());
            case TIMESTAMP -> LocalDateTime.ofInstant(instant(logicalName, raw), ZoneOffset.UTC);
            case TIMESTAMP_TZ -> OffsetDateTime.parse(raw.toString()).toInstant();
            default -> raw; // boolean, string
        };
    }

    /** A timestamp without zone, as Debezium's {@code adaptive_time_microseconds} encodes it by precision. */
    private static Instant instant(String logicalName, Object raw) {
        if (raw instanceof java.util.Date date) {
            return date.toInstant();
        }
        long value = ((Number) raw).longValue();
        if ("io.debezium.time.MicroTimestamp".equals(logicalName)) {
            return Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000L), Math.floorMod(value, 1_000_000L) * 1000L);
        }
        if ("io.debezium.time.NanoTimestamp".equals(logicalName)) {
            return Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000_000L), Math.floorMod(value, 1_000_000_000L));
        }
        return Instant.ofEpochMilli(value);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
