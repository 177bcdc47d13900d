package dev.onceflow.format.csv;

import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.dataformat.csv.CsvGenerator;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.row.TextValues;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Writes a row as one CSV row: each value as its {@link TextValues text}, quoted where RFC 4180
 * needs it, null as an empty cell and the empty string as {@code ""}. A value with a line break is
 * quoted, so line breaks occur only inside quotes.
 */
final class CsvRowEncoder implements RowEncoder {

    private final Schema schema;
    private final CsvSchema csvSchema;
    /** Reused across records: one encoder belongs to one writer thread. */
    private final ByteArrayBuilder buffer = new ByteArrayBuilder(256);

    CsvRowEncoder(Schema schema, CsvSchema csvSchema) {
        this.schema = schema;
        this.csvSchema = csvSchema;
    }

    @Override
    public byte[] encode(Row row) {
        buffer.reset();
        try (CsvGenerator generator = (CsvGenerator) CsvFormatFactory.CSV.createGenerator(buffer)) {
            generator.setSchema(csvSchema);
            generator.writeStartArray();
            for (int i = 0; i < schema.size(); i++) {
                Object value = row.get(i);
                if (value == null) {
                    generator.writeNull();
                } else {
                    String text = TextValues.format(schema.field(i).type(), value);
                    if (text.isEmpty()) {
                        // quoted, so that it reads back as "" and not as null; Jackson's
                        // ALWAYS_QUOTE_EMPTY_STRINGS does not apply once columns are declared
                        generator.writeRawValue("\"\"");
                    } else {
                        generator.writeString(text);
                    }
                }
            }
            generator.writeEndArray();
        } catch (IOException e) {
            // writing to memory does not fail; a failure here is a bug, not bad input
            throw new UncheckedIOException(e);
        }
        return buffer.toByteArray();
    }
}
