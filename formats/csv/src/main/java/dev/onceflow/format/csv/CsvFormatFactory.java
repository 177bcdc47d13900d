package dev.onceflow.format.csv;

import com.fasterxml.jackson.dataformat.csv.CsvFactory;
import com.fasterxml.jackson.dataformat.csv.CsvGenerator;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.format.LineBreaks;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Schema;
import java.util.List;

/**
 * The {@code csv} format: each record is one CSV row (RFC 4180), its columns the schema's fields
 * in order. An empty unquoted cell is {@code null}, a quoted empty cell {@code ""} the empty
 * string, so both round-trip.
 */
public final class CsvFormatFactory implements FormatFactory {

    /** Option values are trimmed, so a tab is named by a word. */
    public static final Option<String> DELIMITER = Option.stringOption("delimiter").defaultValue(",")
            .validate(d -> d.equals("tab") || d.length() == 1 && d.charAt(0) != '"',
                    "one character other than a quote or white space, such as , or ;, or the word tab")
            .description("The character between columns.");

    /**
     * Shared by every decoder and encoder: Jackson's factories are thread-safe. Empty unquoted cells
     * read as null (the encoder writes empty strings quoted), so null and "" stay apart; values are quoted
     * only where RFC 4180 needs it, and a record is written without a line end (the connector frames
     * records).
     */
    static final CsvFactory CSV = CsvFactory.builder()
            .enable(CsvParser.Feature.EMPTY_UNQUOTED_STRING_AS_NULL)
            .enable(CsvGenerator.Feature.STRICT_CHECK_FOR_QUOTING)
            .disable(CsvGenerator.Feature.WRITE_LINEFEED_AFTER_LAST_ROW)
            .build();

    @Override
    public String identifier() {
        return "csv";
    }

    @Override
    public String description() {
        return "One CSV row per record (RFC 4180 quoting), its columns the schema's fields in order; "
                + "scalar types only.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(DELIMITER);
    }

    /**
     * A value holding a line break is quoted, as RFC 4180 says. Line-delimited files find quoted
     * fields by the comma before them, so with another delimiter the line breaks count as unmarked:
     * the filesystem sink then refuses a record holding one rather than write a file it would read
     * back wrongly.
     */
    @Override
    public LineBreaks lineBreaks(OptionValues options) {
        return options.get(DELIMITER).equals(",") ? LineBreaks.QUOTED : LineBreaks.ANYWHERE;
    }

    @Override
    public RowDecoder createDecoder(Schema schema, OptionValues options) {
        return new CsvRowDecoder(checked(schema), csvSchema(options));
    }

    @Override
    public RowEncoder createEncoder(Schema schema, OptionValues options) {
        // with the columns declared the generator writes trailing nulls as empty cells; without, it drops them
        CsvSchema.Builder columns = csvSchema(options).rebuild();
        checked(schema).names().forEach(columns::addColumn);
        return new CsvRowEncoder(schema, columns.build());
    }

    private static CsvSchema csvSchema(OptionValues options) {
        String delimiter = options.get(DELIMITER);
        return CsvSchema.emptySchema().withColumnSeparator(delimiter.equals("tab") ? '\t' : delimiter.charAt(0))
                .withoutHeader();
    }

    /** FMT-4: a cell holds one scalar; nested fields have no CSV form this format would guess for them. */
    private static Schema checked(Schema schema) {
        for (Field field : schema.fields()) {
            if (field.type().isNested()) {
                throw new OptionException("format 'csv': field '" + field.name() + "' is a " + field.type()
                        + "; CSV cells hold scalar values only (use json, or select the nested values into fields)");
            }
        }
        return schema;
    }
}
