package dev.onceflow.spi.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** FMT-5's default for line formats: a file of one record per line, as the filesystem sink writes them. */
class LineFileWriterTest {

    private static final Schema SCHEMA = Schema.of(Field.of("text", DataType.STRING));

    /** A line format whose record is the field's text, with line breaks as {@code lineBreaks} says. */
    private static FormatFactory text(LineBreaks lineBreaks) {
        return new FormatFactory() {
            @Override
            public String identifier() {
                return "text";
            }

            @Override
            public String description() {
                return "the text field";
            }

            @Override
            public List<Option<?>> options() {
                return List.of();
            }

            @Override
            public LineBreaks lineBreaks(OptionValues options) {
                return lineBreaks;
            }

            @Override
            public RowDecoder createDecoder(Schema schema, OptionValues options) {
                throw new UnsupportedOperationException();
            }

            @Override
            public RowEncoder createEncoder(Schema schema, OptionValues options) {
                return row -> ((String) row.get(0)).getBytes(StandardCharsets.UTF_8);
            }
        };
    }

    @Test
    void aLineFormatsFileIsEachRecordFollowedByALineEnd() throws IOException {
        FormatFactory format = text(LineBreaks.NEVER);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RowFileWriter writer = format.createFileWriter(SCHEMA, OptionValues.validate("text", java.util.Map.of(),
                List.of()), out);
        assertThat(format.writesWholeFiles()).isFalse();
        assertThat(out.size()).as("nothing before the first row").isZero();

        writer.write(Row.of(SCHEMA, "a"));
        writer.write(Row.of(SCHEMA, "bé"));
        writer.finish();

        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("a\nbé\n");
    }

    @Test
    void aRecordWithAnUnmarkedLineBreakIsRefused() throws IOException {
        RowFileWriter writer = text(LineBreaks.ANYWHERE).createFileWriter(SCHEMA,
                OptionValues.validate("text", java.util.Map.of(), List.of()), new ByteArrayOutputStream());

        assertThatThrownBy(() -> writer.write(Row.of(SCHEMA, "two\nlines"))).isInstanceOf(IOException.class)
                .hasMessageStartingWith("a record in format 'text' holds a line break");
    }
}
