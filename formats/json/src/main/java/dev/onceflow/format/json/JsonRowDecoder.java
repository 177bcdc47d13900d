package dev.onceflow.format.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.row.TextValues;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one JSON object per record with Jackson's streaming parser, straight into a row: no tree,
 * no intermediate map. Strict (FMT-2): a member of the wrong JSON type, a fraction for an int, a
 * number out of range, a missing or null not-null field, a member given twice, or anything after
 * the object makes the record malformed.
 */
final class JsonRowDecoder implements RowDecoder {

    private final Schema schema;
    private final boolean failOnUnknownFields;

    JsonRowDecoder(Schema schema, boolean failOnUnknownFields) {
        this.schema = schema;
        this.failOnUnknownFields = failOnUnknownFields;
    }

    @Override
    public Row decode(byte[] bytes, int offset, int length) throws MalformedRecordException {
        try (JsonParser parser = JsonFormatFactory.JSON.createParser(bytes, offset, length)) {
            JsonToken first = parser.nextToken();
            if (first != JsonToken.START_OBJECT) {
                throw new MalformedRecordException("expected a JSON object, found " + describe(parser, first));
            }
            Row row = readRow(parser, schema);
            JsonToken after = parser.nextToken();
            if (after != null) {
                throw new MalformedRecordException("unexpected " + describe(parser, after) + " after the JSON object");
            }
            return row;
        } catch (BadField e) {
            throw new MalformedRecordException("field '" + e.path() + "': " + e.getMessage());
        } catch (JsonProcessingException e) {
            throw new MalformedRecordException("not valid JSON: " + e.getOriginalMessage() + " at column "
                    + e.getLocation().getColumnNr());
        } catch (IOException e) {
            throw new MalformedRecordException("not valid JSON: " + e.getMessage(), e);
        }
    }

    /** Reads the members of an object whose START_OBJECT was just read. */
    private Row readRow(JsonParser parser, Schema rowSchema) throws IOException, BadField {
        Object[] values = new Object[rowSchema.size()];
        boolean[] seen = new boolean[values.length];
        JsonToken token;
        int expected = 0;
        while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            // members mostly come in schema order (every writer of a schema writes them so): try the next field first
            int position = expected < values.length && rowSchema.field(expected).name().equals(name) ? expected
                    : rowSchema.indexOf(name);
            expected = position + 1;
            JsonToken valueToken = parser.nextToken();
            if (position < 0) {
                if (failOnUnknownFields) {
                    throw new BadField(TextValues.abbreviate(name), "not a field of the schema (fail-on-unknown-fields is true)");
                }
                parser.skipChildren();
                continue;
            }
            if (seen[position]) {
                // which of two values wins differs between JSON readers: refuse rather than pick one
                throw new BadField(name, "given twice");
            }
            seen[position] = true;
            try {
                values[position] = readValue(parser, valueToken, rowSchema.field(position).type());
            } catch (BadField e) {
                throw e.under(name);
            }
        }
        if (token != JsonToken.END_OBJECT) {
            throw new JsonEndException(parser);
        }
        for (int i = 0; i < values.length; i++) {
            if (!seen[i] && !rowSchema.field(i).type().nullable()) {
                throw new BadField(rowSchema.field(i).name(), "missing, and the field is not null");
            }
        }
        try {
            return Row.of(rowSchema, values);
        } catch (IllegalArgumentException e) {
            throw new BadField("", e.getMessage());
        }
    }

    private Object readValue(JsonParser parser, JsonToken token, DataType type) throws IOException, BadField {
        if (token == JsonToken.VALUE_NULL) {
            if (!type.nullable()) {
                throw new BadField("", "null, and the field is not null");
            }
            return null;
        }
        return switch (type.kind()) {
            case BOOLEAN -> {
                if (token != JsonToken.VALUE_TRUE && token != JsonToken.VALUE_FALSE) {
                    throw wrong(parser, token, type);
                }
                yield token == JsonToken.VALUE_TRUE;
            }
            case INT -> {
                requireWholeNumber(parser, token, type);
                if (parser.getNumberType() != JsonParser.NumberType.INT) {
                    throw new BadField("", TextValues.abbreviate(parser.getText()) + " is out of range for an int");
                }
                yield parser.getIntValue();
            }
            case LONG -> {
                requireWholeNumber(parser, token, type);
                if (parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                    throw new BadField("", TextValues.abbreviate(parser.getText()) + " is out of range for a long");
                }
                yield parser.getLongValue();
            }
            case FLOAT -> {
                if (token == JsonToken.VALUE_STRING) {
                    yield (float) nonFinite(parser, type);
                }
                requireNumber(parser, token, type);
                try {
                    yield (float) TextValues.inRange(parser.getText(), parser.getFloatValue(), type);
                } catch (IllegalArgumentException e) {
                    throw new BadField("", e.getMessage());
                }
            }
            case DOUBLE -> {
                if (token == JsonToken.VALUE_STRING) {
                    yield nonFinite(parser, type);
                }
                requireNumber(parser, token, type);
                try {
                    yield TextValues.inRange(parser.getText(), parser.getDoubleValue(), type);
                } catch (IllegalArgumentException e) {
                    throw new BadField("", e.getMessage());
                }
            }
            case DECIMAL -> {
                BigDecimal value;
                if (token == JsonToken.VALUE_STRING) {
                    // decimals often travel as strings (Debezium's decimal.handling.mode=string, most APIs)
                    value = (BigDecimal) text(() -> {
                        try {
                            return new BigDecimal(parser.getText());
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException("'" + TextValues.abbreviate(parser.getText())
                                    + "' is not a number");
                        }
                    });
                } else {
                    requireNumber(parser, token, type);
                    value = parser.getDecimalValue();
                }
                try {
                    yield TextValues.decimal(type, value);
                } catch (IllegalArgumentException e) {
                    throw new BadField("", e.getMessage());
                }
            }
            case STRING -> {
                if (token != JsonToken.VALUE_STRING) {
                    throw wrong(parser, token, type);
                }
                yield parser.getText();
            }
            case BYTES, DATE, TIME, TIMESTAMP, TIMESTAMP_TZ -> {
                if (token != JsonToken.VALUE_STRING) {
                    throw wrong(parser, token, type);
                }
                yield text(() -> TextValues.parse(type, parser.getText()));
            }
            case ROW -> {
                if (token != JsonToken.START_OBJECT) {
                    throw wrong(parser, token, type);
                }
                yield readRow(parser, type.schema());
            }
            case ARRAY -> {
                if (token != JsonToken.START_ARRAY) {
                    throw wrong(parser, token, type);
                }
                List<Object> list = new ArrayList<>();
                JsonToken element;
                while ((element = parser.nextToken()) != JsonToken.END_ARRAY) {
                    if (element == null) {
                        throw new JsonEndException(parser);
                    }
                    try {
                        list.add(readValue(parser, element, type.elementType()));
                    } catch (BadField e) {
                        throw e.under("[" + list.size() + "]");
                    }
                }
                yield list;
            }
            case MAP -> {
                if (token != JsonToken.START_OBJECT) {
                    throw wrong(parser, token, type);
                }
                Map<Object, Object> map = new LinkedHashMap<>();
                JsonToken member;
                while ((member = parser.nextToken()) == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    Object key = text(() -> TextValues.parse(type.keyType(), name));
                    try {
                        Object value = readValue(parser, parser.nextToken(), type.valueType());
                        if (map.containsKey(key)) {
                            throw new BadField("", "given twice");
                        }
                        map.put(key, value);
                    } catch (BadField e) {
                        throw e.under("[" + TextValues.abbreviate(name) + "]");
                    }
                }
                if (member != JsonToken.END_OBJECT) {
                    throw new JsonEndException(parser);
                }
                yield map;
            }
        };
    }

    private static double nonFinite(JsonParser parser, DataType type) throws IOException, BadField {
        return switch (parser.getText()) {
            case "NaN" -> Double.NaN;
            case "Infinity" -> Double.POSITIVE_INFINITY;
            case "-Infinity" -> Double.NEGATIVE_INFINITY;
            default -> throw new BadField("", "'" + TextValues.abbreviate(parser.getText()) + "' is not a "
                    + type.withNullable(true) + " (a number, or the string NaN, Infinity or -Infinity)");
        };
    }

    private interface TextParse {
        Object parse() throws IOException;
    }

    private static Object text(TextParse parse) throws IOException, BadField {
        try {
            return parse.parse();
        } catch (IllegalArgumentException e) {
            throw new BadField("", e.getMessage());
        }
    }

    private static void requireNumber(JsonParser parser, JsonToken token, DataType type) throws IOException, BadField {
        if (token != JsonToken.VALUE_NUMBER_INT && token != JsonToken.VALUE_NUMBER_FLOAT) {
            throw wrong(parser, token, type);
        }
    }

    private static void requireWholeNumber(JsonParser parser, JsonToken token, DataType type)
            throws IOException, BadField {
        if (token == JsonToken.VALUE_NUMBER_FLOAT) {
            throw new BadField("", TextValues.abbreviate(parser.getText()) + " is not a whole number, as "
                    + type.withNullable(true) + " needs");
        }
        if (token != JsonToken.VALUE_NUMBER_INT) {
            throw wrong(parser, token, type);
        }
    }

    private static BadField wrong(JsonParser parser, JsonToken token, DataType type) throws IOException {
        return new BadField("", "expected " + expected(type) + ", found " + describe(parser, token));
    }

    private static String expected(DataType type) {
        return switch (type.kind()) {
            case BOOLEAN -> "true or false";
            case INT, LONG -> "a whole number";
            case FLOAT, DOUBLE, DECIMAL -> "a number";
            case STRING -> "a string";
            case BYTES -> "a base64 string";
            case DATE, TIME, TIMESTAMP, TIMESTAMP_TZ -> "an ISO-8601 " + type.kind().typeName() + " string";
            case ROW, MAP -> "an object";
            case ARRAY -> "an array";
        };
    }

    /** A token as a user would name it, with the value where it is short: never the whole record. */
    private static String describe(JsonParser parser, JsonToken token) throws IOException {
        if (token == null) {
            return "the end of the record";
        }
        return switch (token) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "the string \"" + TextValues.abbreviate(parser.getText()) + "\"";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "the number " + TextValues.abbreviate(parser.getText());
            case VALUE_TRUE, VALUE_FALSE -> parser.getText();
            case VALUE_NULL -> "null";
            default -> parser.getText();
        };
    }

    /** A record ended inside an object or array: Jackson reports that when it reads past the end. */
    private static final class JsonEndException extends JsonProcessingException {
        private static final long serialVersionUID = 1L;

        JsonEndException(JsonParser parser) {
            super("the record ends inside an object or array", parser.currentLocation());
        }
    }

    /** A value that does not fit, with the path to it built while the exception unwinds. */
    private static final class BadField extends Exception {
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

        String path() {
            return path;
        }
    }
}
