package dev.onceflow.connector.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.format.csv.CsvFormatFactory;
import dev.onceflow.format.json.JsonFormatFactory;
import dev.onceflow.format.raw.RawFormatFactory;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceReaderContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Lines decoded by a format: the line's bytes reach the format as they are in the file. */
class FileSourceRowsTest {

    @TempDir
    Path dir;

    private static Format format(FormatFactory factory, Map<String, String> options) {
        return new Format(factory, OptionValues.validate("format", options, factory.options()));
    }

    private List<Row> read(Format format, Schema schema, byte[] content) throws Exception {
        Path file = dir.resolve("in.txt");
        Files.write(file, content);
        return read(LineDecoding.rows(format, schema), file);
    }

    private List<Row> read(LineDecoding<Row> lines, Path file) throws Exception {
        FileSource<Row> source = FileSource.builder(dir.toString(), lines).build();
        List<Row> rows = new ArrayList<>();
        try (SourceReader<Row, FileSplit> reader = source.createReader(new SourceReaderContext() {
            @Override
            public int subtaskIndex() {
                return 0;
            }

            @Override
            public int parallelism() {
                return 1;
            }

            @Override
            public void sendSplitRequest() {
                // the one split is added below
            }
        })) {
            reader.addSplits(List.of(new FileSplit(file.toString(), 0)));
            reader.notifyNoMoreSplits();
            for (int polls = 0; reader.pollNext(rows::add) != InputStatus.END_OF_INPUT; polls++) {
                assertThat(polls).isLessThan(1_000);
            }
        }
        return rows;
    }

    @Test
    void rawBytesPassUnchangedEvenWhenTheyAreNotText() throws Exception {
        Format bytes = format(new RawFormatFactory(), Map.of("type", "bytes"));
        Schema schema = Schema.of(Field.of("value", DataType.BYTES.notNull()));

        List<Row> rows = read(bytes, schema, new byte[] {(byte) 0xFF, (byte) 0xFE, 'A', '\n', 0, 0x7F, '\n'});

        assertThat(rows).extracting(r -> (byte[]) r.get(0))
                .containsExactly(new byte[] {(byte) 0xFF, (byte) 0xFE, 'A'}, new byte[] {0, 0x7F});
    }

    @Test
    void textThatIsNotUtf8FailsTheReaderNamingTheFileAndTheOffsetNeverReplaced() {
        Format text = format(new RawFormatFactory(), Map.of());
        Schema schema = Schema.of(Field.of("value", DataType.STRING.notNull()));

        assertThatThrownBy(() -> read(text, schema, new byte[] {'o', 'k', '\n', 'b', (byte) 0xC3, '(', '\n'}))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("cannot read raw line at byte offset 3 of file ")
                .hasMessageContaining("in.txt: field 'value': not UTF-8 text");
    }

    @Test
    void aCsvLineBreakInsideQuotesStaysInItsRecord() throws Exception {
        Format csv = format(new CsvFormatFactory(), Map.of());
        Schema schema = Schema.of(Field.of("id", DataType.LONG.notNull()), Field.of("note", DataType.STRING));

        List<Row> rows = read(csv, schema, "1,\"two\nlines, \"\"quoted\"\"\"\n2,\n3,\"\"\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));

        assertThat(rows).containsExactly(Row.of(schema, 1L, "two\nlines, \"quoted\""), Row.of(schema, 2L, null),
                Row.of(schema, 3L, ""));
    }

    @Test
    void metadataFieldsAddEachLinesFileAndOffsetWhichKeyRowsWithoutAKey() throws Exception {
        Format json = format(new JsonFormatFactory(), Map.of());
        Schema values = Schema.of(Field.of("payer", DataType.STRING.notNull()));
        List<LineDecoding.Metadata> metadata = List.of(LineDecoding.Metadata.FILE, LineDecoding.Metadata.OFFSET);
        Path file = dir.resolve("in.txt");
        Files.write(file, "{\"payer\":\"a\"}\n{\"payer\":\"Zoë\"}\n{\"payer\":\"c\"}\n"
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));

        Schema schema = LineDecoding.schema(values, metadata);
        List<Row> rows = read(LineDecoding.rows(json, values, metadata), file);

        assertThat(schema.primaryKey()).containsExactly("file", "offset");
        assertThat(rows).containsExactly(Row.of(schema, "a", "in.txt", 0L), Row.of(schema, "Zoë", "in.txt", 14L),
                Row.of(schema, "c", "in.txt", 31L));
        assertThat(LineDecoding.schema(values.withPrimaryKey("payer"), metadata).primaryKey())
                .as("a declared key stays").containsExactly("payer");
        assertThat(LineDecoding.schema(values, List.of(LineDecoding.Metadata.OFFSET)).primaryKey())
                .as("an offset alone is no identity across files").isEmpty();
    }
}
