package dev.onceflow.connector.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.format.csv.CsvFormatFactory;
import dev.onceflow.format.debezium.DebeziumJsonFormatFactory;
import dev.onceflow.format.json.JsonFormatFactory;
import dev.onceflow.format.raw.RawFormatFactory;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.source.SourceReader;
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
        return read(lines, new FileSplit(file.toString(), 0));
    }

    private List<Row> read(LineDecoding<Row> lines, FileSplit split) throws Exception {
        return SingleReader.readToEnd(FileSource.builder(dir.toString(), lines).build(), split);
    }

    private SourceReader<Row, FileSplit> reader(LineDecoding<Row> lines) {
        return SingleReader.open(FileSource.builder(dir.toString(), lines).build());
    }

    /** FMT-8: lines are read a row each, so a format whose record can be two rows or none is refused up front. */
    @Test
    void aChangelogFormatIsRefusedBeforeTheJobRuns() {
        Schema keyed = Schema.of(List.of(Field.of("id", DataType.LONG)), List.of("id"));
        assertThatThrownBy(() -> LineDecoding.rows(format(new DebeziumJsonFormatFactory(), Map.of()), keyed, List.of()))
                .isInstanceOf(OptionException.class).hasMessage("source 'file': format 'debezium-json' reads changes, "
                        + "which this source does not take yet; read them from a kafka source");
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
                .hasMessageContaining("cannot read the record at byte offset 3 of file ")
                .hasMessageContaining("in.txt (format raw): field 'value': not UTF-8 text");
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
    private static final Schema HEADED = Schema.of(Field.of("id", DataType.LONG.notNull()),
            Field.of("order, \"note\"", DataType.STRING));

    private static Format headedCsv() {
        return format(new CsvFormatFactory(), Map.of("header", "true"));
    }

    private Path write(String text) throws IOException {
        Path file = dir.resolve("in.csv");
        Files.writeString(file, text);
        return file;
    }

    @Test
    void aHeadedCsvFileIsReadWithoutItsHeaderWhoseQuotedNamesAreChecked() throws Exception {
        Path file = write("id,\"order, \"\"note\"\"\"\n1,\"two\nlines\"\n2,\n3,plain\n");

        assertThat(read(LineDecoding.rows(headedCsv(), HEADED), file)).containsExactly(
                Row.of(HEADED, 1L, "two\nlines"), Row.of(HEADED, 2L, null), Row.of(HEADED, 3L, "plain"));
    }

    @Test
    void aHeaderThatDiffersFromTheSchemaFailsNamingTheFileAndTheColumn() throws Exception {
        Path file = write("\"order, \"\"note\"\"\",id\n\"x\",1\n");

        assertThatThrownBy(() -> read(LineDecoding.rows(headedCsv(), HEADED), file))
                .isInstanceOf(IOException.class)
                .hasMessage("cannot read csv file " + file + ": its header line does not match the schema: header column 1 is 'order, \"note\"' where "
                        + "field 'id' is expected (fields in order: id, order, \"note\")");
    }

    /** FMT-6: only the line at offset 0 is a header; a split resumed past it starts at a record. */
    @Test
    void aSplitResumedFromAnOffsetReadsEveryLineAfterItAndSkipsNone() throws Exception {
        StringBuilder text = new StringBuilder("id,\"order, \"\"note\"\"\"\n");
        List<Row> expected = new ArrayList<>();
        for (long id = 0; id < 250; id++) {
            text.append(id).append(",\"note\n").append(id).append("\"\n");
            expected.add(Row.of(HEADED, id, "note\n" + id));
        }
        Path file = write(text.toString());
        LineDecoding<Row> lines = LineDecoding.rows(headedCsv(), HEADED);

        List<Row> first = new ArrayList<>();
        List<FileSplit> checkpoint;
        try (SourceReader<Row, FileSplit> reader = reader(lines)) {
            reader.addSplits(List.of(new FileSplit(file.toString(), 0)));
            assertThat(reader.snapshotState(1)).as("nothing read yet: the header is still ahead")
                    .containsExactly(new FileSplit(file.toString(), 0));
            reader.pollNext(first::add);
            checkpoint = reader.snapshotState(2);
        }
        List<Row> rest = read(lines, checkpoint.get(0));

        assertThat(first).hasSize(FileSourceReader.MAX_RECORDS_PER_POLL);
        List<Row> all = new ArrayList<>(first);
        all.addAll(rest);
        assertThat(all).containsExactlyElementsOf(expected);
        long afterHeader = "id,\"order, \"\"note\"\"\"\n".length();
        assertThat(read(lines, new FileSplit(file.toString(), afterHeader))).as("resumed right after the header")
                .containsExactlyElementsOf(expected);
    }
}
