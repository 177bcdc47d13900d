package dev.onceflow.spi.row;

import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Writes the {@link Row}s of one {@link Schema} into checkpoints (write-ahead segments, in-flight
 * records of unaligned checkpoints, keyed state). The schema is not written: reader and writer
 * share it, so a row costs its values only.
 *
 * <p>Version 2: the row's {@link RowKind} as its {@link RowKind#toByteValue() byte}, then the fields
 * as in version 1. Version 1, written before rows had kinds, reads as {@link RowKind#INSERT} (SER-2).
 * Nested rows carry no kind.
 *
 * <p>Version 1, field by field in schema order: a nullable field starts with a byte, 0 for null
 * and 1 for a value; then the value: boolean one byte; int, float four bytes; long, double eight;
 * decimal the unscaled value's two's-complement bytes (an int length first), the scale being the
 * type's; string and bytes an int length then the bytes (UTF-8 for strings); date the epoch day
 * (long); time the nano of the day (long); timestamp and timestamptz the epoch second (long, UTC
 * for timestamp) then the nano (int); row its fields the same way; array an int count then its
 * elements; map an int count then key and value of each entry. Everything big-endian.
 *
 * <p>Stateless; any thread (SER-4). Corrupt bytes fail with an {@link IOException}, never a huge
 * allocation (SER-3), and a decoded row is checked against the schema like any other.
 */
public final class RowSerializer implements SimpleVersionedSerializer<Row> {

    private static final int VERSION = 2;

    /** The version before rows had kinds: fields only, every row an insert. */
    private static final int WITHOUT_KIND = 1;

    private final Schema schema;

    private RowSerializer(Schema schema) {
        this.schema = Objects.requireNonNull(schema, "schema");
    }

    /** The serializer of rows of {@code schema}. */
    public static RowSerializer of(Schema schema) {
        return new RowSerializer(schema);
    }

    /** The schema whose rows this serializer writes. */
    public Schema schema() {
        return schema;
    }

    @Override
    public int version() {
        return VERSION;
    }

    /**
     * @throws IllegalArgumentException if {@code row} is of another schema: its bytes would be read
     *     back as this schema's, wrongly
     */
    @Override
    public byte[] serialize(Row row) throws IOException {
        if (!row.schema().equals(schema)) {
            throw new IllegalArgumentException("a row of " + row.schema() + " given to the serializer of " + schema);
        }
        return Serializers.write(out -> {
            out.writeByte(row.kind().toByteValue());
            writeFields(out, schema, row);
        });
    }

    @Override
    public Row deserialize(int version, byte[] serialized) throws IOException {
        if (version == WITHOUT_KIND) {
            return Serializers.read(serialized, in -> readRow(in, schema));
        }
        Serializers.checkVersion(VERSION, version, "row");
        return Serializers.read(serialized, in -> {
            byte kindByte = in.readByte();
            RowKind kind;
            try {
                kind = RowKind.fromByteValue(kindByte);
            } catch (IllegalArgumentException e) {
                throw new IOException("corrupt row: " + e.getMessage(), e);
            }
            Row row = readRow(in, schema);
            try {
                return row.withKind(kind);
            } catch (IllegalArgumentException e) {
                throw new IOException("corrupt row: " + e.getMessage(), e);
            }
        });
    }

    private static void writeFields(DataOutputStream out, Schema schema, Row row) throws IOException {
        for (int i = 0; i < schema.size(); i++) {
            write(out, schema.field(i).type(), row.get(i));
        }
    }

    private static void write(DataOutputStream out, DataType type, Object value) throws IOException {
        if (type.nullable()) {
            out.writeByte(value == null ? 0 : 1);
            if (value == null) {
                return;
            }
        }
        switch (type.kind()) {
            case BOOLEAN -> out.writeBoolean((Boolean) value);
            case INT -> out.writeInt((Integer) value);
            case LONG -> out.writeLong((Long) value);
            case FLOAT -> out.writeFloat((Float) value);
            case DOUBLE -> out.writeDouble((Double) value);
            case DECIMAL -> writeBytes(out, ((BigDecimal) value).unscaledValue().toByteArray());
            case STRING -> writeBytes(out, ((String) value).getBytes(StandardCharsets.UTF_8));
            case BYTES -> writeBytes(out, (byte[]) value);
            case DATE -> out.writeLong(((LocalDate) value).toEpochDay());
            case TIME -> out.writeLong(((LocalTime) value).toNanoOfDay());
            case TIMESTAMP -> {
                LocalDateTime t = (LocalDateTime) value;
                out.writeLong(t.toEpochSecond(ZoneOffset.UTC));
                out.writeInt(t.getNano());
            }
            case TIMESTAMP_TZ -> {
                Instant t = (Instant) value;
                out.writeLong(t.getEpochSecond());
                out.writeInt(t.getNano());
            }
            case ROW -> writeFields(out, type.schema(), (Row) value);
            case ARRAY -> {
                List<?> list = (List<?>) value;
                out.writeInt(list.size());
                for (Object e : list) {
                    write(out, type.elementType(), e);
                }
            }
            case MAP -> {
                Map<?, ?> map = (Map<?, ?>) value;
                out.writeInt(map.size());
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    write(out, type.keyType(), e.getKey());
                    write(out, type.valueType(), e.getValue());
                }
            }
            default -> throw new IllegalStateException("no encoding for " + type);
        }
    }

    private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static Row readRow(DataInputStream in, Schema schema) throws IOException {
        Object[] values = new Object[schema.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = read(in, schema.field(i).type(), schema.field(i).name());
        }
        try {
            return Row.of(schema, values);
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt row: " + e.getMessage(), e);
        }
    }

    private static Object read(DataInputStream in, DataType type, String field) throws IOException {
        if (type.nullable()) {
            int marker = in.readUnsignedByte();
            if (marker == 0) {
                return null;
            }
            if (marker != 1) {
                throw new IOException("corrupt row: null marker " + marker + " in field '" + field + "'");
            }
        }
        try {
            return switch (type.kind()) {
                case BOOLEAN -> in.readBoolean();
                case INT -> in.readInt();
                case LONG -> in.readLong();
                case FLOAT -> in.readFloat();
                case DOUBLE -> in.readDouble();
                case DECIMAL -> new BigDecimal(new BigInteger(readBytes(in, field)), type.scale());
                case STRING -> new String(readBytes(in, field), StandardCharsets.UTF_8);
                case BYTES -> readBytes(in, field);
                case DATE -> LocalDate.ofEpochDay(in.readLong());
                case TIME -> LocalTime.ofNanoOfDay(in.readLong());
                case TIMESTAMP -> LocalDateTime.ofEpochSecond(in.readLong(), in.readInt(), ZoneOffset.UTC);
                case TIMESTAMP_TZ -> Instant.ofEpochSecond(in.readLong(), in.readInt());
                case ROW -> readRow(in, type.schema());
                case ARRAY -> {
                    int count = count(in, field);
                    List<Object> list = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        list.add(read(in, type.elementType(), field));
                    }
                    yield list;
                }
                case MAP -> {
                    int count = count(in, field);
                    Map<Object, Object> map = new LinkedHashMap<>();
                    for (int i = 0; i < count; i++) {
                        map.put(read(in, type.keyType(), field), read(in, type.valueType(), field));
                    }
                    yield map;
                }
            };
        } catch (DateTimeException | NumberFormatException e) {
            throw new IOException("corrupt row: field '" + field + "': " + e.getMessage(), e);
        }
    }

    private static byte[] readBytes(DataInputStream in, String field) throws IOException {
        byte[] bytes = new byte[Serializers.readLength(in, "row field '" + field + "'")];
        in.readFully(bytes);
        return bytes;
    }

    /** An element count; every element takes at least one byte, so more than are left is corrupt. */
    private static int count(DataInputStream in, String field) throws IOException {
        return Serializers.readLength(in, "row field '" + field + "'");
    }
}
