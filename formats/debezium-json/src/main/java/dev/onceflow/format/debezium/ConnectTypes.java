package dev.onceflow.format.debezium;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.TextValues;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * Debezium's typed values, as Kafka Connect's JsonConverter writes them with the schema
 * ({@code schema-include: true}): a column's schema names its logical type (epoch microseconds
 * for {@code io.debezium.time.MicroTimestamp}, a base64 two's complement for
 * {@code org.apache.kafka.connect.data.Decimal}), and this class turns such a value into the text
 * the json format reads for the field's type. A named type not listed here is refused by name,
 * unless its values are plain strings (Debezium's Json, Uuid, Enum, Xml types).
 */
final class ConnectTypes {

    /** A column's logical type: its schema's {@code name}, Connect {@code type} and a decimal's scale. */
    record Named(String name, String connectType, int scale) {
    }

    private ConnectTypes() {
    }

    /**
     * The columns of the event's {@code before} and {@code after} schemas that name a logical type,
     * by column name.
     *
     * @throws MalformedRecordException if the schema is not a Connect struct schema of an envelope
     */
    static Map<String, Named> namedFields(JsonNode envelopeSchema) throws MalformedRecordException {
        JsonNode members = envelopeSchema == null ? null : envelopeSchema.get("fields");
        if (members == null || !members.isArray()) {
            throw new MalformedRecordException("the wrapper's schema has no 'fields' array: not a Connect struct schema");
        }
        Map<String, Named> named = new HashMap<>();
        for (JsonNode member : members) {
            String which = member.path("field").asText();
            if (!which.equals("before") && !which.equals("after")) {
                continue;
            }
            for (JsonNode column : member.path("fields")) {
                JsonNode name = column.get("name");
                if (name != null && name.isTextual()) {
                    named.put(column.path("field").asText(), new Named(name.asText(), column.path("type").asText(),
                            column.path("parameters").path("scale").asInt(0)));
                }
            }
        }
        return named;
    }

    /**
     * The json format's text of {@code value}, a column of logical type {@code type}, read into a
     * field of type {@code target}.
     *
     * @throws IllegalArgumentException with a one-line reason (the caller names the field), if the
     *     type is not supported, the value is not of its JSON shape, or the field's type cannot hold it
     */
    static String asText(Named type, JsonNode value, DataType target) {
        return switch (type.name()) {
            case "io.debezium.time.MicroTimestamp" -> timestamp(type, target, epochNanos(type, value, 1_000L));
            case "io.debezium.time.Timestamp", "org.apache.kafka.connect.data.Timestamp" ->
                    timestamp(type, target, epochNanos(type, value, 1_000_000L));
            case "io.debezium.time.NanoTimestamp" -> timestamp(type, target, epochNanos(type, value, 1L));
            case "io.debezium.time.Date", "org.apache.kafka.connect.data.Date" -> {
                require(type, target, DataType.Kind.DATE);
                yield TextValues.format(DataType.DATE, LocalDate.ofEpochDay(whole(type, value)));
            }
            case "io.debezium.time.MicroTime" -> time(type, target, whole(type, value) * 1_000L);
            case "io.debezium.time.Time", "org.apache.kafka.connect.data.Time" ->
                    time(type, target, whole(type, value) * 1_000_000L);
            case "io.debezium.time.NanoTime" -> time(type, target, whole(type, value));
            case "org.apache.kafka.connect.data.Decimal" -> {
                require(type, target, DataType.Kind.DECIMAL);
                if (!value.isTextual()) {
                    throw new IllegalArgumentException(type.name() + " is a base64 string, found " + value.getNodeType());
                }
                byte[] unscaled;
                try {
                    unscaled = Base64.getDecoder().decode(value.asText());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(type.name() + " '" + TextValues.abbreviate(value.asText())
                            + "' is not base64");
                }
                if (unscaled.length == 0) {
                    throw new IllegalArgumentException(type.name() + " holds no bytes");
                }
                yield new BigDecimal(new BigInteger(unscaled), type.scale()).toPlainString();
            }
            default -> {
                if (!type.connectType().equals("string")) {
                    throw new IllegalArgumentException("Debezium type '" + type.name() + "' (" + type.connectType()
                            + ") is not supported; read it as a string with decimal.handling.mode=string or "
                            + "time.precision.mode=connect, or leave the field out of the schema");
                }
                if (!value.isTextual()) {
                    throw new IllegalArgumentException(type.name() + " is a string, found " + value.getNodeType());
                }
                yield value.asText();
            }
        };
    }

    private static long whole(Named type, JsonNode value) {
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new IllegalArgumentException(type.name() + " is a whole number, found " + value.getNodeType()
                    + (value.isNumber() ? " " + TextValues.abbreviate(value.asText()) : ""));
        }
        return value.asLong();
    }

    /** Nanoseconds since the epoch as seconds and the rest, so that micros of any long fit. */
    private static Instant epochNanos(Named type, JsonNode value, long nanosPerUnit) {
        long units = whole(type, value);
        long unitsPerSecond = 1_000_000_000L / nanosPerUnit;
        return Instant.ofEpochSecond(Math.floorDiv(units, unitsPerSecond),
                Math.floorMod(units, unitsPerSecond) * nanosPerUnit);
    }

    private static String timestamp(Named type, DataType target, Instant instant) {
        if (target.kind() == DataType.Kind.TIMESTAMP_TZ) {
            return TextValues.format(DataType.TIMESTAMP_TZ, instant);
        }
        require(type, target, DataType.Kind.TIMESTAMP);
        // Debezium writes a column without time zone as if its wall-clock time were UTC
        return TextValues.format(DataType.TIMESTAMP, LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
    }

    private static String time(Named type, DataType target, long nanosOfDay) {
        require(type, target, DataType.Kind.TIME);
        if (nanosOfDay < 0 || nanosOfDay >= 86_400_000_000_000L) {
            throw new IllegalArgumentException(type.name() + " " + nanosOfDay + " ns is not a time of day");
        }
        return TextValues.format(DataType.TIME, LocalTime.ofNanoOfDay(nanosOfDay));
    }

    private static void require(Named type, DataType target, DataType.Kind kind) {
        if (target.kind() != kind) {
            throw new IllegalArgumentException("Debezium type '" + type.name() + "' reads into a "
                    + kind.typeName() + " field, not " + target.withNullable(true));
        }
    }
}
