package dev.onceflow.connector.elasticsearch;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.row.TextValues;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * Writes a row as the JSON body of its document: every field under its name, in schema order,
 * nulls as {@code null}. Booleans and the four number kinds are JSON literals; every other scalar
 * is a JSON string in the text all formats share ({@link TextValues}): decimals in plain digits
 * with their scale, so no value is rounded by a reader or by Elasticsearch's dynamic mapping of
 * fractions to {@code float}; bytes in base64; dates and times in ISO 8601, {@code timestamptz}
 * in UTC with {@code Z}. Nested rows and maps are objects (map keys as text), arrays are arrays.
 *
 * <p>Deterministic: equal rows, with map entries in the same order, give equal bytes, so a replay
 * rewrites a document with exactly its first content. One encoder per writer thread.
 */
final class DocumentEncoder {

    /** Characters beyond the basic plane as their four UTF-8 bytes, not as an escaped surrogate pair. */
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8).build();

    /** Reused across records: one encoder belongs to one writer thread. */
    private final ByteArrayBuilder buffer = new ByteArrayBuilder(256);

    /** The document of {@code row}, in an array the caller owns. */
    byte[] encode(Row row) {
        buffer.reset();
        try (JsonGenerator json = JSON.createGenerator(buffer)) {
            object(json, row.schema(), row);
        } catch (IOException e) {
            // writing to memory does not fail; a failure here is a bug, not bad input
            throw new UncheckedIOException(e);
        }
        return buffer.toByteArray();
    }

    private static void object(JsonGenerator json, Schema schema, Row row) throws IOException {
        json.writeStartObject();
        for (int i = 0; i < schema.size(); i++) {
            json.writeFieldName(schema.field(i).name());
            value(json, schema.field(i).type(), row.get(i));
        }
        json.writeEndObject();
    }

    private static void value(JsonGenerator json, DataType type, Object value) throws IOException {
        if (value == null) {
            json.writeNull();
            return;
        }
        switch (type.kind()) {
            case BOOLEAN -> json.writeBoolean((Boolean) value);
            case INT, LONG -> json.writeNumber(((Number) value).longValue());
            // Elasticsearch refuses NaN and infinities in numeric fields; as strings they reach it and
            // are rejected there (on-rejected decides), never turned into another number here.
            case FLOAT -> {
                if (Float.isFinite((Float) value)) {
                    json.writeNumber((Float) value);
                } else {
                    json.writeString(value.toString());
                }
            }
            case DOUBLE -> {
                if (Double.isFinite((Double) value)) {
                    json.writeNumber((Double) value);
                } else {
                    json.writeString(value.toString());
                }
            }
            case ROW -> object(json, type.schema(), (Row) value);
            case ARRAY -> {
                json.writeStartArray();
                for (Object element : (List<?>) value) {
                    value(json, type.elementType(), element);
                }
                json.writeEndArray();
            }
            case MAP -> {
                json.writeStartObject();
                for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                    json.writeFieldName(TextValues.format(type.keyType(), entry.getKey()));
                    value(json, type.valueType(), entry.getValue());
                }
                json.writeEndObject();
            }
            default -> json.writeString(TextValues.format(type, value)); // decimal, string, bytes, dates, times
        }
    }
}
