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
}
