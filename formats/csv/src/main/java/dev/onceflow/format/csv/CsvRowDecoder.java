package dev.onceflow.format.csv;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.row.TextValues;
import java.io.IOException;

/**
 * Reads one CSV row per record with jackson-dataformat-csv's parser. The number of columns must be
 * the number of fields: a missing or extra column is a malformed record, not a null or a dropped
 * value (FMT-2).
 */
final class CsvRowDecoder implements RowDecoder {

    private final Schema schema;
    private final CsvSchema csvSchema;

    CsvRowDecoder(Schema schema, CsvSchema csvSchema) {
        this.schema = schema;
        this.csvSchema = csvSchema;
    }

    @Override
    public Row decode(byte[] bytes, int offset, int length) throws MalformedRecordException {
        Object[] values = new Object[schema.size()];
        if (length == 0 && values.length == 1 && schema.field(0).type().nullable()) {
            // the one cell is empty: null, as the encoder writes it ("" is written quoted)
            return Row.of(schema, values);
        }
        try (CsvParser parser = (CsvParser) CsvFormatFactory.CSV.createParser(bytes, offset, length)) {
            parser.setSchema(csvSchema);
            if (parser.nextToken() != JsonToken.START_ARRAY) {
                throw new MalformedRecordException("an empty record; expected " + schema.size() + " columns");
            }
            int column = 0;
            JsonToken token;
            while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
                if (column >= values.length) {
                    throw new MalformedRecordException("more than the " + values.length + " columns of the schema's fields");
                }
                Field field = schema.field(column);
                if (token != JsonToken.VALUE_NULL && token != JsonToken.VALUE_STRING) {
                    throw new MalformedRecordException("not valid CSV: unexpected " + token + " in column " + (column + 1));
                }
                if (token == JsonToken.VALUE_NULL) {
                    if (!field.type().nullable()) {
                        throw new MalformedRecordException("field '" + field.name() + "' (column " + (column + 1)
                                + "): empty, and the field is not null");
                    }
                } else {
                    try {
                        values[column] = TextValues.parse(field.type(), parser.getText());
                    } catch (IllegalArgumentException e) {
                        throw new MalformedRecordException("field '" + field.name() + "' (column " + (column + 1) + "): "
                                + e.getMessage());
                    }
                }
                column++;
            }
            if (column < values.length) {
                throw new MalformedRecordException(column + " columns, but the schema has " + values.length
                        + " fields; field '" + schema.field(column).name() + "' is missing");
            }
            if (parser.nextToken() != null) {
                throw new MalformedRecordException("more than one CSV row in the record");
            }
        } catch (JsonProcessingException e) {
            throw new MalformedRecordException("not valid CSV: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new MalformedRecordException("not valid CSV: " + e.getMessage(), e);
        }
        try {
            return Row.of(schema, values);
        } catch (IllegalArgumentException e) {
            throw new MalformedRecordException(e.getMessage());
        }
    }
}
