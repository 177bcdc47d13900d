package dev.onceflow.format.avro;

import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * Writes a row as the Avro binary of one datum with Avro's {@link GenericDatumWriter}, behind the
 * wire format's header. One encoder per writer, on its thread: the output buffer and Avro's
 * encoder are reused from record to record.
 *
 * <p>Deterministic (FMT-3): Avro binary has one encoding per value, map entries are written in the
 * row's order, and every NaN is written as the one canonical NaN.
 */
final class AvroRowEncoder implements RowEncoder {

    private final Schema schema;
    private final org.apache.avro.Schema avro;
    private final byte[] header;
    private final GenericDatumWriter<Object> writer;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    private BinaryEncoder encoder;

    AvroRowEncoder(Schema schema, org.apache.avro.Schema avro, byte[] header) {
        this.schema = schema;
        this.avro = avro;
        this.header = header.clone();
        this.writer = new GenericDatumWriter<>(avro, new RawGenericData());
    }

    @Override
    public byte[] encode(Row row) {
        out.reset();
        out.writeBytes(header);
        encoder = EncoderFactory.get().binaryEncoder(out, encoder);
        try {
            writer.write(record(schema, avro, row, ""), encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("format 'avro': writing to memory failed", e);
        }
        return out.toByteArray();
    }

    /**
     * {@code row} as Avro's generic record of {@code recordSchema}, whose fields are {@code rowSchema}'s
     * in order: what the container file writer appends, too.
     *
     * @throws IllegalArgumentException with one line naming the field, for a value the Avro type cannot hold
     */
    static GenericData.Record record(Schema rowSchema, org.apache.avro.Schema recordSchema, Row row,
            String parentPath) {
        GenericData.Record record = new GenericData.Record(recordSchema);
        List<org.apache.avro.Schema.Field> fields = recordSchema.getFields();
        for (int i = 0; i < fields.size(); i++) {
            String name = rowSchema.field(i).name();
            record.put(i, value(rowSchema.field(i).type(), fields.get(i).schema(), row.get(i),
                    parentPath.isEmpty() ? name : parentPath + "." + name));
        }
        return record;
    }

    /** {@code value} as Avro's generic representation of {@code avro}, which is a type or a union of null and one. */
    private static Object value(DataType type, org.apache.avro.Schema avro, Object value, String path) {
        if (value == null) {
            return null;
        }
        org.apache.avro.Schema target = AvroSchemas.nonNull(avro);
        return switch (type.kind()) {
            case BOOLEAN, INT, LONG, FLOAT, DOUBLE -> canonical(value);
            case DECIMAL -> bytes(target, ((BigDecimal) value).unscaledValue().toByteArray(), true, path);
            case STRING -> {
                if (target.getType() == org.apache.avro.Schema.Type.ENUM) {
                    if (!target.hasEnumSymbol((String) value)) {
                        throw new IllegalArgumentException("format 'avro': field '" + path + "': '" + value
                                + "' is not a symbol of enum " + target.getFullName());
                    }
                    yield new GenericData.EnumSymbol(target, value);
                }
                yield value;
            }
            case BYTES -> bytes(target, (byte[]) value, false, path);
            case DATE -> {
                long day = ((LocalDate) value).toEpochDay();
                if (day != (int) day) {
                    throw new IllegalArgumentException("format 'avro': field '" + path + "': " + value
                            + " is beyond the range of Avro's date");
                }
                yield (int) day;
            }
            case TIME -> {
                long units = ((LocalTime) value).toNanoOfDay() / (1_000_000_000L / AvroSchemas.unitsPerSecond(target));
                yield target.getType() == org.apache.avro.Schema.Type.INT ? (Object) (int) units : (Object) units;
            }
            case TIMESTAMP -> {
                LocalDateTime t = (LocalDateTime) value;
                yield units(t.toEpochSecond(ZoneOffset.UTC), t.getNano(), target, value, path);
            }
            case TIMESTAMP_TZ -> {
                Instant t = (Instant) value;
                yield units(t.getEpochSecond(), t.getNano(), target, value, path);
            }
            case ROW -> record(type.schema(), target, (Row) value, path);
            case ARRAY -> {
                List<?> list = (List<?>) value;
                List<Object> array = new ArrayList<>(list.size());
                for (Object element : list) {
                    array.add(value(type.elementType(), target.getElementType(), element, path + "[]"));
                }
                yield array;
            }
            case MAP -> {
                Map<?, ?> map = (Map<?, ?>) value;
                Map<String, Object> avroMap = new LinkedHashMap<>(Math.max(4, map.size() * 2));
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    avroMap.put((String) entry.getKey(),
                            value(type.valueType(), target.getValueType(), entry.getValue(), path + "[]"));
                }
                yield avroMap;
            }
        };
    }

    /** Every NaN as {@link Float#NaN} or {@link Double#NaN}: equal rows may hold NaNs of other bits. */
    private static Object canonical(Object value) {
        if (value instanceof Float f && f.isNaN()) {
            return Float.NaN;
        }
        if (value instanceof Double d && d.isNaN()) {
            return Double.NaN;
        }
        return value;
    }

    /**
     * Bytes as {@code bytes} or as a {@code fixed}; a decimal's two's-complement digits are widened to
     * a fixed's size with their sign.
     */
    private static Object bytes(org.apache.avro.Schema target, byte[] bytes, boolean signed, String path) {
        if (target.getType() != org.apache.avro.Schema.Type.FIXED) {
            return ByteBuffer.wrap(bytes);
        }
        int size = target.getFixedSize();
        if (bytes.length == size) {
            return new GenericData.Fixed(target, bytes);
        }
        if (!signed || bytes.length > size) {
            throw new IllegalArgumentException("format 'avro': field '" + path + "': " + bytes.length
                    + " bytes for fixed " + target.getFullName() + " of " + size + " bytes");
        }
        byte[] widened = new byte[size];
        Arrays.fill(widened, 0, size - bytes.length, bytes[0] < 0 ? (byte) -1 : 0);
        System.arraycopy(bytes, 0, widened, size - bytes.length, bytes.length);
        return new GenericData.Fixed(target, widened);
    }

    /** A time since the epoch in the logical type's unit, cut to it (toward the past). */
    private static long units(long epochSecond, int nano, org.apache.avro.Schema target, Object value, String path) {
        long perSecond = AvroSchemas.unitsPerSecond(target);
        try {
            return Math.addExact(Math.multiplyExact(epochSecond, perSecond), nano / (1_000_000_000L / perSecond));
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("format 'avro': field '" + path + "': " + value + " is beyond the range of "
                    + AvroSchemas.logicalName(target));
        }
    }
}
