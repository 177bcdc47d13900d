package dev.onceflow.format.raw;

import dev.onceflow.conformance.format.FormatConformanceSuite;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The raw format (string) against rules FMT-1 to FMT-4. */
class RawFormatConformanceTest extends FormatConformanceSuite {

    private static final Schema TEXT = Schema.of(Field.of("value", DataType.STRING.notNull()));

    @Override
    protected FormatFactory factory() {
        return new RawFormatFactory();
    }

    @Override
    protected Schema schema() {
        return TEXT;
    }

    @Override
    protected List<Row> rows() {
        return List.of(Row.of(TEXT, ""), Row.of(TEXT, "naïve, \"quoted\"\ttab\nline\r\nbreaks 日本 😀"),
                Row.of(TEXT, "{\"not\": \"parsed\"}"));
    }

    @Override
    protected List<Malformed> malformedRecords() {
        return List.of(new Malformed(new byte[] {'a', (byte) 0xC3, '(', 'b'}, "field 'value': not UTF-8 text"),
                new Malformed(new byte[] {(byte) 0xFF}, "field 'value': not UTF-8 text"));
    }

    @Override
    protected Optional<Map.Entry<Schema, String>> unrepresentableSchema() {
        return Optional.of(Map.entry(Schema.of(Field.of("value", DataType.STRING.notNull()), Field.of("extra", DataType.INT)),
                "extra"));
    }
}
