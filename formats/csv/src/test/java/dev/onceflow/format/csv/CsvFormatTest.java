package dev.onceflow.format.csv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the csv format writes and reads beyond the round trip: quoting, nulls, the delimiter. */
class CsvFormatTest {

    private static final Schema SCHEMA = Schema.of(Field.of("id", DataType.LONG), Field.of("text", DataType.STRING),
            Field.of("amount", DataType.decimal(6, 2)));
    private final CsvFormatFactory factory = new CsvFormatFactory();

    private OptionValues options(Map<String, String> raw) {
        return OptionValues.validate("format 'csv'", raw, factory.options());
    }

    private String encode(Row row, Map<String, String> raw) {
        return new String(factory.createEncoder(SCHEMA, options(raw)).encode(row), StandardCharsets.UTF_8);
    }

    @Test
    void quotesOnlyWhereRfc4180NeedsItAndKeepsNullApartFromEmpty() throws Exception {
        assertThat(encode(Row.of(SCHEMA, 1L, "plain", new BigDecimal("1.50")), Map.of())).isEqualTo("1,plain,1.50");
        assertThat(encode(Row.of(SCHEMA, 2L, "a,\"b\"\nc", null), Map.of())).isEqualTo("2,\"a,\"\"b\"\"\nc\",");
        assertThat(encode(Row.of(SCHEMA, 3L, "", null), Map.of())).isEqualTo("3,\"\",");

        var decoder = factory.createDecoder(SCHEMA, options(Map.of()));
        assertThat(decoder.decode("3,\"\",".getBytes(StandardCharsets.UTF_8))).isEqualTo(Row.of(SCHEMA, 3L, "", null));
        assertThat(decoder.decode("4,,".getBytes(StandardCharsets.UTF_8))).isEqualTo(Row.of(SCHEMA, 4L, null, null));
    }

    @Test
    void theDelimiterIsAnOption() throws Exception {
        Row row = Row.of(SCHEMA, 1L, "a;b", new BigDecimal("2.00"));

        assertThat(encode(row, Map.of("delimiter", ";"))).isEqualTo("1;\"a;b\";2.00");
        assertThat(factory.createDecoder(SCHEMA, options(Map.of("delimiter", "tab")))
                .decode("1\ta;b\t2".getBytes(StandardCharsets.UTF_8))).isEqualTo(row);
        assertThatThrownBy(() -> options(Map.of("delimiter", ";;"))).isInstanceOf(OptionException.class)
                .hasMessageContaining("one character other than a quote or white space");
    }

    @Test
    void aSingleNullableColumnReadsItsNullBack() throws Exception {
        Schema one = Schema.of(Field.of("note", DataType.STRING));
        var encoder = factory.createEncoder(one, options(Map.of()));
        var decoder = factory.createDecoder(one, options(Map.of()));

        for (Row row : new Row[] {Row.of(one, (Object) null), Row.of(one, ""), Row.of(one, "x")}) {
            assertThat(decoder.decode(encoder.encode(row))).as("%s", row).isEqualTo(row);
        }
    }

    @Test
    void lineBreaksAreMarkedOnlyWithTheCommaThatLineReadersKnow() {
        assertThat(factory.lineBreaks(options(Map.of()))).isEqualTo(dev.onceflow.spi.format.LineBreaks.QUOTED);
        assertThat(factory.lineBreaks(options(Map.of("delimiter", ";"))))
                .isEqualTo(dev.onceflow.spi.format.LineBreaks.ANYWHERE);
    }
    private static final Schema NAMED = Schema.of(Field.of("id", DataType.LONG), Field.of("order, \"no\"", DataType.STRING),
            Field.of("note", DataType.STRING));

    private void checkHeader(Map<String, String> raw, String line) throws Exception {
        factory.checkFileHeader(NAMED, options(raw), line.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theHeaderIsTheFieldNamesQuotedAsValuesAndOnlyWithTheOption() throws Exception {
        assertThat(factory.fileHeader(NAMED, options(Map.of()))).as("no header by default").isEmpty();
        assertThat(new String(factory.fileHeader(NAMED, options(Map.of("header", "true"))), StandardCharsets.UTF_8))
                .isEqualTo("id,\"order, \"\"no\"\"\",note");
        assertThat(new String(factory.fileHeader(NAMED, options(Map.of("header", "true", "delimiter", ";"))),
                StandardCharsets.UTF_8)).isEqualTo("id;\"order, \"\"no\"\"\";note");

        java.io.ByteArrayOutputStream file = new java.io.ByteArrayOutputStream();
        var writer = factory.createFileWriter(NAMED, options(Map.of("header", "true")), file);
        assertThat(file.size()).as("FMT-5: nothing written before the first row").isZero();
        writer.write(Row.of(NAMED, 1L, "a", null));
        writer.write(Row.of(NAMED, 2L, "b", "c"));
        writer.finish();
        assertThat(file.toString(StandardCharsets.UTF_8)).isEqualTo("id,\"order, \"\"no\"\"\",note\n1,a,\n2,b,c\n");
    }

    @Test
    void aHeaderMatchesTheFieldNamesInOrderWhateverTheQuoting() throws Exception {
        Map<String, String> header = Map.of("header", "true");
        checkHeader(header, "id,\"order, \"\"no\"\"\",note");
        checkHeader(header, "\"id\",\"order, \"\"no\"\"\",\"note\"");
        checkHeader(header, "\uFEFFid,\"order, \"\"no\"\"\",note");
        checkHeader(header, "id,\"order, \"\"no\"\"\",note\r");
        checkHeader(Map.of("header", "true", "delimiter", "tab"), "id\t\"order, \"\"no\"\"\"\tnote");
    }

    @Test
    void aHeaderThatDiffersFailsNamingTheFirstDifferingColumn() {
        Map<String, String> header = Map.of("header", "true");
        assertThatThrownBy(() -> checkHeader(header, "id,note,\"order, \"\"no\"\"\""))
                .isInstanceOf(dev.onceflow.spi.format.MalformedRecordException.class)
                .hasMessage("header column 2 is 'note' where field 'order, \"no\"' is expected (fields in order: id, "
                        + "order, \"no\", note)");
        assertThatThrownBy(() -> checkHeader(header, "ID,\"order, \"\"no\"\"\",note"))
                .hasMessageStartingWith("header column 1 is 'ID' where field 'id' is expected");
        assertThatThrownBy(() -> checkHeader(header, "id,\"order, \"\"no\"\"\""))
                .hasMessage("the header has 2 columns, but the schema has 3 fields; field 'note' (column 3) is missing");
        assertThatThrownBy(() -> checkHeader(header, "id,\"order, \"\"no\"\"\",note,\"line\nbreak\""))
                .hasMessage("header column 4 is 'line\\nbreak', but the schema has only 3 fields");
    }

    @Test
    void aNameWithALineBreakIsRefusedWhereLineBreaksAreUnmarked() throws Exception {
        Schema broken = Schema.of(Field.of("two\nlines", DataType.STRING));
        assertThat(new String(factory.fileHeader(broken, options(Map.of("header", "true"))), StandardCharsets.UTF_8))
                .isEqualTo("\"two\nlines\"");
        assertThatThrownBy(() -> factory.fileHeader(broken, options(Map.of("header", "true", "delimiter", ";"))))
                .isInstanceOf(OptionException.class)
                .hasMessage("format 'csv': field 'two\\nlines' holds a line break in its name, which a header line "
                        + "with delimiter ';' cannot hold; rename the field or use the delimiter ,");
    }
}
