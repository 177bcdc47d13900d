package dev.onceflow.format.csv;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.dataformat.csv.CsvFactory;
import com.fasterxml.jackson.dataformat.csv.CsvGenerator;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.format.LineBreaks;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Schema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code csv} format: each record is one CSV row (RFC 4180), its columns the schema's fields
 * in order. An empty unquoted cell is {@code null}, a quoted empty cell {@code ""} the empty
 * string, so both round-trip. With {@code header: true}, files start with a line of the field names
 * (FMT-6).
 */
public final class CsvFormatFactory implements FormatFactory {

    /** Option values are trimmed, so a tab is named by a word. */
    public static final Option<String> DELIMITER = Option.stringOption("delimiter").defaultValue(",")
            .validate(d -> d.equals("tab") || d.length() == 1 && d.charAt(0) != '"',
                    "one character other than a quote or white space, such as , or ;, or the word tab")
            .description("The character between columns.");

    public static final Option<Boolean> HEADER = Option.booleanOption("header").defaultValue(false)
            .description("true: each file starts with a line of the field names. The filesystem sink writes it at "
                    + "the start of every part file; the file source checks it (the names, in order, case-sensitive) "
                    + "and fails naming the file and the first column that differs. Files only: the kafka source "
                    + "and sink refuse it.");

    /** How many characters of a header cell an error quotes. */
    private static final int QUOTED_CELL_CHARS = 40;

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
        return List.of(DELIMITER, HEADER);
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
        return new CsvRowEncoder(schema, columns(checked(schema), options));
    }

    /** With the columns declared the generator writes trailing nulls as empty cells; without, it drops them. */
    private static CsvSchema columns(Schema schema, OptionValues options) {
        CsvSchema.Builder columns = csvSchema(options).rebuild();
        schema.names().forEach(columns::addColumn);
        return columns.build();
    }

    /**
     * FMT-6: with {@code header: true}, the field names as one CSV row, quoted as values are. A name
     * holding a line break is refused where line breaks are unmarked (another delimiter than the
     * comma): the file source would split the header there.
     */
    @Override
    public byte[] fileHeader(Schema schema, OptionValues options) {
        if (!options.get(HEADER)) {
            return new byte[0];
        }
        checked(schema);
        if (lineBreaks(options) == LineBreaks.ANYWHERE) {
            for (String name : schema.names()) {
                if (name.indexOf('\n') >= 0 || name.indexOf('\r') >= 0) {
                    throw new OptionException("format 'csv': field '" + printable(name) + "' holds a line break in its "
                            + "name, which a header line with delimiter '" + options.get(DELIMITER) + "' cannot hold; "
                            + "rename the field or use the delimiter ,");
                }
            }
        }
        ByteArrayBuilder buffer = new ByteArrayBuilder(64);
        try (CsvGenerator generator = (CsvGenerator) CSV.createGenerator(buffer)) {
            generator.setSchema(columns(schema, options));
            generator.writeStartArray();
            for (String name : schema.names()) {
                generator.writeString(name);
            }
            generator.writeEndArray();
        } catch (IOException e) {
            // writing to memory does not fail; a failure here is a bug, not bad input
            throw new UncheckedIOException(e);
        }
        return buffer.toByteArray();
    }

    /**
     * FMT-6: the header's cells must be the field names, in order, exactly; quoting may differ, and
     * a UTF-8 byte order mark (as spreadsheet programs write) before the first name is skipped.
     */
    @Override
    public void checkFileHeader(Schema schema, OptionValues options, byte[] line) throws MalformedRecordException {
        int start = line.length >= 3 && (line[0] & 0xFF) == 0xEF && (line[1] & 0xFF) == 0xBB && (line[2] & 0xFF) == 0xBF
                ? 3 : 0;
        List<String> cells = new ArrayList<>();
        try (CsvParser parser = (CsvParser) CSV.createParser(line, start, line.length - start)) {
            parser.setSchema(csvSchema(options));
            if (parser.nextToken() == JsonToken.START_ARRAY) {
                JsonToken token;
                while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
                    cells.add(token == JsonToken.VALUE_NULL ? "" : parser.getText());
                }
            }
            if (parser.nextToken() != null) {
                throw new MalformedRecordException("the header line holds more than one CSV row");
            }
        } catch (JsonProcessingException e) {
            throw new MalformedRecordException("the header line is not valid CSV: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new MalformedRecordException("the header line is not valid CSV: " + e.getMessage(), e);
        }
        List<String> names = schema.names();
        for (int i = 0; i < Math.min(cells.size(), names.size()); i++) {
            if (!cells.get(i).equals(names.get(i))) {
                throw new MalformedRecordException("header column " + (i + 1) + " is '" + printable(cells.get(i))
                        + "' where field '" + printable(names.get(i)) + "' is expected (fields in order: "
                        + String.join(", ", names) + ")");
            }
        }
        if (cells.size() < names.size()) {
            throw new MalformedRecordException("the header has " + cells.size() + " columns, but the schema has "
                    + names.size() + " fields; field '" + printable(names.get(cells.size())) + "' (column "
                    + (cells.size() + 1) + ") is missing");
        }
        if (cells.size() > names.size()) {
            throw new MalformedRecordException("header column " + (names.size() + 1) + " is '"
                    + printable(cells.get(names.size())) + "', but the schema has only " + names.size() + " fields");
        }
    }

    /** A name or cell fit for a one-line error: line breaks shown as escapes, long text cut. */
    private static String printable(String text) {
        String cut = text.length() > QUOTED_CELL_CHARS ? text.substring(0, QUOTED_CELL_CHARS) + "..." : text;
        return cut.replace("\r", "\\r").replace("\n", "\\n");
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
