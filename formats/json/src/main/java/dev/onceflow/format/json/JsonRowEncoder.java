package dev.onceflow.format.json;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.row.TextValues;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a row as one compact JSON object, members in schema order, nulls as {@code null}.
 * Jackson escapes control characters, so a record never holds a line break.
 * Non-finite floats and doubles, which JSON numbers cannot express, are the strings {@code NaN},
 * {@code Infinity} and {@code -Infinity}, as the decoder reads them.
 */
final class JsonRowEncoder implements RowEncoder {

    private final Schema schema;
    /** Reused across records: one encoder belongs to one writer thread. */
    private final ByteArrayBuilder buffer = new ByteArrayBuilder(256);
    /** Field names encoded once per schema (the top one and nested ones), not once per value. */
    private final Map<Schema, SerializedString[]> names = new IdentityHashMap<>();

    JsonRowEncoder(Schema schema) {
        this.schema = schema;
    }

    @Override
    public byte[] encode(Row row) {
        buffer.reset();
        try (JsonGenerator generator = JsonFormatFactory.JSON.createGenerator(buffer)) {
            writeRow(generator, schema, row);
        } catch (IOException e) {
            // writing to memory does not fail; a failure here is a bug, not bad input
            throw new UncheckedIOException(e);
        }
        return buffer.toByteArray();
    }

    private void writeRow(JsonGenerator generator, Schema rowSchema, Row row) throws IOException {
        SerializedString[] fieldNames = names.computeIfAbsent(rowSchema, s -> s.names().stream()
                .map(SerializedString::new).toArray(SerializedString[]::new));
        generator.writeStartObject();
        for (int i = 0; i < fieldNames.length; i++) {
            generator.writeFieldName(fieldNames[i]);
            writeValue(generator, rowSchema.field(i).type(), row.get(i));
        }
        generator.writeEndObject();
    }

    private void writeValue(JsonGenerator generator, DataType type, Object value) throws IOException {
        if (value == null) {
            generator.writeNull();
            return;
        }
        switch (type.kind()) {
            case BOOLEAN -> generator.writeBoolean((Boolean) value);
            case INT -> generator.writeNumber((Integer) value);
            case LONG -> generator.writeNumber((Long) value);
            case FLOAT -> {
                float f = (Float) value;
                if (Float.isFinite(f)) {
                    generator.writeNumber(f);
                } else {
                    generator.writeString(Float.toString(f));
                }
            }
            case DOUBLE -> {
                double d = (Double) value;
                if (Double.isFinite(d)) {
                    generator.writeNumber(d);
                } else {
                    generator.writeString(Double.toString(d));
                }
            }
            case DECIMAL -> generator.writeNumber((BigDecimal) value);
            case STRING -> generator.writeString((String) value);
            case BYTES, DATE, TIME, TIMESTAMP, TIMESTAMP_TZ -> generator.writeString(TextValues.format(type, value));
            case ROW -> writeRow(generator, type.schema(), (Row) value);
            case ARRAY -> {
                generator.writeStartArray();
                for (Object element : (List<?>) value) {
                    writeValue(generator, type.elementType(), element);
                }
                generator.writeEndArray();
            }
            case MAP -> {
                generator.writeStartObject();
                for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                    generator.writeFieldName(TextValues.format(type.keyType(), entry.getKey()));
                    writeValue(generator, type.valueType(), entry.getValue());
                }
                generator.writeEndObject();
            }
        }
    }
}
