package dev.onceflow.format.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamWriteFeature;
import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.format.LineBreaks;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.row.Schema;
import java.util.List;

/** The {@code json} format: each record is one JSON object whose members are the row's fields. */
public final class JsonFormatFactory implements FormatFactory {

    public static final Option<Boolean> FAIL_ON_UNKNOWN_FIELDS = Option.booleanOption("fail-on-unknown-fields")
            .defaultValue(false)
            .description("true: a member that is not a field of the schema makes the record malformed; "
                    + "false: such members are skipped.");

    /**
     * Shared by every decoder and encoder: Jackson's factories are thread-safe. Decimals are written
     * in plain digits, as readers that do not parse exponents expect.
     */
    static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
            .build();

    @Override
    public String identifier() {
        return "json";
    }

    @Override
    public String description() {
        return "One JSON object per record, its members the row's fields; nested rows, arrays and maps as JSON "
                + "objects and arrays.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(FAIL_ON_UNKNOWN_FIELDS);
    }

    /** Jackson escapes control characters in strings, and the encoder writes no white space between tokens. */
    @Override
    public LineBreaks lineBreaks(OptionValues options) {
        return LineBreaks.NEVER;
    }

    @Override
    public RowDecoder createDecoder(Schema schema, OptionValues options) {
        return new JsonRowDecoder(schema, options.get(FAIL_ON_UNKNOWN_FIELDS));
    }

    @Override
    public RowEncoder createEncoder(Schema schema, OptionValues options) {
        return new JsonRowEncoder(schema);
    }
}
