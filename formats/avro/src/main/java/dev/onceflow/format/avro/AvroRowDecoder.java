package dev.onceflow.format.avro;

import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.EOFException;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.ResolvingDecoder;
import org.apache.avro.util.Utf8;

/**
 * Reads one Avro datum per record with Avro's {@link GenericDatumReader}, after checking the wire
 * format's header, and turns it into a row. One decoder per reader, on its thread: Avro's binary
 * decoder and a UTF-8 decoder are reused from record to record.
 *
 * <p>Strict (FMT-2): bytes left after the datum, text that is not UTF-8, a map key given twice, a
 * decimal with more digits than its precision and a time of day outside the day make the record
 * malformed; Avro itself would pass the first three silently.
 */
final class AvroRowDecoder implements RowDecoder {

    /** The first byte of a record in Confluent's wire format. */
    static final byte MAGIC_BYTE = 0;

    private final Schema schema;
    private final byte[] header;
    private final StrictReader reader;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder();
    private BinaryDecoder decoder;

    AvroRowDecoder(Schema schema, org.apache.avro.Schema avro, byte[] header) {
        this.schema = schema;
        this.header = header.clone();
        this.reader = new StrictReader(avro, avro);
    }

    /**
     * Avro's reader with this decoder's checks, for the records of a container file: the file's
     * reader gives it the writer's schema, and the caller then sets the schema to resolve it to.
     */
    static GenericDatumReader<Object> fileDatumReader() {
        return new StrictReader(null, null);
    }

    /**
     * The row of a record that Avro read in the {@code avro} schema this decoder was made with.
     *
     * @throws MalformedRecordException naming the field whose value does not fit
     */
    Row row(Object datum) throws MalformedRecordException {
        try {
            return row(schema, (GenericRecord) datum);
        } catch (BadField e) {
            throw new MalformedRecordException(e.describe());
        }
    }

    @Override
    public Row decode(byte[] bytes, int offset, int length) throws MalformedRecordException {
        checkHeader(bytes, offset, length);
        decoder = DecoderFactory.get().binaryDecoder(bytes, offset + header.length, length - header.length, decoder);
        Object datum;
        try {
            datum = reader.read(null, decoder);
        } catch (BadField e) {
            throw new MalformedRecordException(e.describe());
        } catch (IOException | RuntimeException e) {
            throw new MalformedRecordException("not an Avro datum of the schema: " + reason(e));
        }
        try {
            if (!decoder.isEnd()) {
                throw new MalformedRecordException("bytes are left after the Avro datum: the record was not written "
                        + "in this schema, or holds more than one datum");
            }
        } catch (IOException e) {
            throw new MalformedRecordException("not an Avro datum of the schema: " + reason(e));
        }
        try {
            return row(schema, (GenericRecord) datum);
        } catch (BadField e) {
            throw new MalformedRecordException(e.describe());
        }
    }

    private void checkHeader(byte[] bytes, int offset, int length) throws MalformedRecordException {
        if (header.length == 0) {
            return;
        }
        if (length < header.length) {
            throw new MalformedRecordException("a record of " + length + " bytes is shorter than the " + header.length
                    + "-byte header of wire-format confluent (byte 0, then the 4-byte schema id)");
        }
        if (bytes[offset] != MAGIC_BYTE) {
            throw new MalformedRecordException(String.format("the record starts with byte 0x%02x, not the magic byte "
                    + "0x00 of wire-format confluent", bytes[offset] & 0xff));
        }
        int found = ByteBuffer.wrap(bytes, offset + 1, 4).getInt();
        int expected = ByteBuffer.wrap(header, 1, 4).getInt();
        if (found != expected) {
            throw new MalformedRecordException("the record carries schema id " + Integer.toUnsignedString(found)
                    + ", but option 'schema-id' is " + expected);
        }
    }

    private Row row(Schema rowSchema, GenericRecord record) throws BadField {
        Object[] values = new Object[rowSchema.size()];
        for (int i = 0; i < values.length; i++) {
            try {
                values[i] = value(rowSchema.field(i).type(), record.getSchema().getFields().get(i).schema(), record.get(i));
            } catch (BadField e) {
                throw e.under(rowSchema.field(i).name());
            }
        }
        try {
            return Row.of(rowSchema, values);
        } catch (IllegalArgumentException e) {
            throw new BadField("", e.getMessage());
        }
    }

    private Object value(DataType type, org.apache.avro.Schema avro, Object value) throws BadField {
        if (value == null) {
            if (!type.nullable()) {
                throw new BadField("", "null, and the field is not null");
            }
            return null;
        }
        org.apache.avro.Schema source = AvroSchemas.nonNull(avro);
        return switch (type.kind()) {
            case BOOLEAN, INT, LONG, FLOAT, DOUBLE -> value;
            case DECIMAL -> {
                byte[] digits = bytes(value);
                if (digits.length == 0) {
                    throw new BadField("", "a decimal of no bytes");
                }
                BigDecimal decimal = new BigDecimal(new BigInteger(digits), type.scale());
                if (decimal.precision() > type.precision()) {
                    throw new BadField("", "decimal " + abbreviate(decimal.toPlainString()) + " has more than "
                            + type.precision() + " digits for " + type.withNullable(true));
                }
                yield decimal;
            }
            case STRING -> value instanceof GenericEnumSymbol<?> symbol ? symbol.toString() : text(value);
            case BYTES -> bytes(value);
            case DATE -> LocalDate.ofEpochDay((Integer) value);
            case TIME -> {
                long perSecond = AvroSchemas.unitsPerSecond(source);
                long units = ((Number) value).longValue();
                if (units < 0 || units >= 86_400L * perSecond) {
                    throw new BadField("", units + " " + AvroSchemas.logicalName(source).substring(5)
                            + " is not a time of day");
                }
                yield LocalTime.ofNanoOfDay(units * (1_000_000_000L / perSecond));
            }
            case TIMESTAMP -> {
                long perSecond = AvroSchemas.unitsPerSecond(source);
                long units = (Long) value;
                yield LocalDateTime.ofEpochSecond(Math.floorDiv(units, perSecond),
                        (int) (Math.floorMod(units, perSecond) * (1_000_000_000L / perSecond)), ZoneOffset.UTC);
            }
            case TIMESTAMP_TZ -> {
                long perSecond = AvroSchemas.unitsPerSecond(source);
                long units = (Long) value;
                yield Instant.ofEpochSecond(Math.floorDiv(units, perSecond),
                        Math.floorMod(units, perSecond) * (1_000_000_000L / perSecond));
            }
            case ROW -> row(type.schema(), (GenericRecord) value);
            case ARRAY -> {
                List<Object> list = new ArrayList<>(((Collection<?>) value).size());
                for (Object element : (Collection<?>) value) {
                    try {
                        list.add(value(type.elementType(), source.getElementType(), element));
                    } catch (BadField e) {
                        throw e.under("[" + list.size() + "]");
                    }
                }
                yield list;
            }
            case MAP -> {
                Map<?, ?> avroMap = (Map<?, ?>) value;
                Map<String, Object> map = new LinkedHashMap<>(Math.max(4, avroMap.size() * 2));
                for (Map.Entry<?, ?> entry : avroMap.entrySet()) {
                    String key = text(entry.getKey());
                    try {
                        map.put(key, value(type.valueType(), source.getValueType(), entry.getValue()));
                    } catch (BadField e) {
                        throw e.under("[" + abbreviate(key) + "]");
                    }
                }
                yield map;
            }
        };
    }

    /** Avro's {@link Utf8} as a string, refusing bytes that are not UTF-8 rather than replacing them with U+FFFD. */
    private String text(Object value) throws BadField {
        if (!(value instanceof Utf8 utf)) {
            return value.toString();
        }
        try {
            return utf8.decode(ByteBuffer.wrap(utf.getBytes(), 0, utf.getByteLength())).toString();
        } catch (CharacterCodingException e) {
            throw new BadField("", "text that is not UTF-8");
        }
    }

    /** A copy of a {@code bytes} or {@code fixed} value's bytes: rows own theirs. */
    private static byte[] bytes(Object value) {
        if (value instanceof GenericFixed fixed) {
            return fixed.bytes().clone();
        }
        ByteBuffer buffer = ((ByteBuffer) value).duplicate();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    /** What went wrong in Avro's reader, in one line. */
    private static String reason(Throwable e) {
        if (e instanceof EOFException) {
            return "the record ends inside a value";
        }
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return abbreviate(message.replaceAll("\\s+", " ").strip());
    }

    private static String abbreviate(String text) {
        return text.length() > 100 ? text.substring(0, 100) + "..." : text;
    }

    /**
     * Avro's generic reader, with the checks it lacks: a map key given twice is an error (Avro keeps
     * the last), an error names the field it happened in, and a collection's size read from the
     * record is not trusted for an allocation before its elements are there.
     */
    private static final class StrictReader extends GenericDatumReader<Object> {

        StrictReader(org.apache.avro.Schema writer, org.apache.avro.Schema reader) {
            super(writer, reader, new RawGenericData());
        }

        @Override
        protected void readField(Object record, org.apache.avro.Schema.Field field, Object oldDatum,
                ResolvingDecoder in, Object state) throws IOException {
            try {
                super.readField(record, field, oldDatum, in, state);
            } catch (BadField e) {
                throw e.under(field.name());
            } catch (IOException | RuntimeException e) {
                throw new BadField(field.name(), reason(e));
            }
        }

        @Override
        protected Object newMap(Object old, int size) {
            return new LinkedHashMap<>();
        }

        @Override
        @SuppressWarnings("unchecked")
        protected void addToMap(Object map, Object key, Object value) {
            Map<Object, Object> m = (Map<Object, Object>) map;
            if (m.containsKey(key)) {
                throw new BadField("[" + abbreviate(key.toString()) + "]", "map key given twice");
            }
            m.put(key, value);
        }

        @Override
        protected Object newArray(Object old, int size, org.apache.avro.Schema schema) {
            return new GenericData.Array<>(Math.min(size, 1024), schema);
        }
    }

    /**
     * A value that does not fit, with the path to it built while the exception unwinds. Unchecked so
     * that it passes through Avro's reader.
     */
    static final class BadField extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private String path;

        BadField(String path, String reason) {
            super(reason, null, false, false);
            this.path = path;
        }

        BadField under(String parent) {
            path = path.isEmpty() ? parent : path.startsWith("[") ? parent + path : parent + "." + path;
            return this;
        }

        String describe() {
            return path.isEmpty() ? getMessage() : "field '" + path + "': " + getMessage();
        }
    }
}
