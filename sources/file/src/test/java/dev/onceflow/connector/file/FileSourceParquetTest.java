package dev.onceflow.connector.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.format.parquet.ParquetFormatFactory;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.RowFileWriter;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.spi.source.SourceReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parquet files read whole by the file source: rows in file order, a split's position is the
 * number of rows emitted, and a reader restored from a snapshot taken mid-file goes on with the
 * next row (SRC-1); a file that does not fit the schema, or is not Parquet, fails naming it.
 */
class FileSourceParquetTest {

    private static final ParquetFormatFactory FACTORY = new ParquetFormatFactory();
    private static final Format PARQUET = new Format(FACTORY,
            OptionValues.validate("format 'parquet'", Map.of("row-group-size", "1024"), FACTORY.options()));
    private static final Schema SCHEMA = Schema.of(Field.of("id", DataType.LONG.notNull()),
            Field.of("name", DataType.STRING));
    private static final int ROWS = 1_000;

    @TempDir
    Path dir;

    @Test
    void rowsComeInFileOrderAndARestoredSplitGoesOnWithTheNextRow() throws Exception {
        Path file = write("a.parquet", SCHEMA, rows(ROWS));
        WholeFileDecoding<Row> decoding = WholeFileDecoding.rows(PARQUET, SCHEMA, List.of());
        List<Row> emitted = new ArrayList<>();
        List<FileSplit> snapshot;
        try (SourceReader<Row, FileSplit> reader = reader(decoding)) {
            reader.addSplits(List.of(new FileSplit(file.toString(), 0)));
            for (int polls = 0; polls < 3; polls++) {
                assertThat(reader.pollNext(emitted::add)).isEqualTo(InputStatus.MORE_AVAILABLE);
            }
            snapshot = reader.snapshotState(1);
        }
        assertThat(snapshot).containsExactly(new FileSplit(file.toString(), emitted.size()));
        assertThat(emitted).hasSize(3 * FileSourceReader.MAX_RECORDS_PER_POLL);

        emitted.addAll(readToEnd(decoding, snapshot.get(0)));

        assertThat(emitted).containsExactlyElementsOf(rows(ROWS));
    }

    @Test
    void metadataFieldsAreTheFileNameAndTheRowIndex() throws Exception {
        Path file = write("m.parquet", SCHEMA, rows(3));
        List<LineDecoding.Metadata> metadata = List.of(LineDecoding.Metadata.FILE, LineDecoding.Metadata.OFFSET);
        Schema withMetadata = LineDecoding.schema(SCHEMA, metadata);

        List<Row> read = readToEnd(WholeFileDecoding.rows(PARQUET, SCHEMA, metadata),
                new FileSplit(file.toString(), 1));

        assertThat(read).containsExactly(Row.of(withMetadata, 1L, "name-1 ☃", "m.parquet", 1L),
                Row.of(withMetadata, 2L, null, "m.parquet", 2L));
    }

    @Test
    void aFileThatDoesNotFitTheSchemaFailsNamingTheFileAndTheField() throws Exception {
        Path file = write("other.parquet", Schema.of(Field.of("id", DataType.INT)), List.of());
        WholeFileDecoding<Row> decoding = WholeFileDecoding.rows(PARQUET, SCHEMA, List.of());

        assertThatThrownBy(() -> readToEnd(decoding, new FileSplit(file.toString(), 0)))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("cannot read parquet file " + file + ": field 'id' is declared long not null")
                .hasMessageNotContaining("\n");
    }

    @Test
    void aFileThatIsNotParquetOrWasReplacedByAShorterOneFailsNamingIt() throws Exception {
        Path text = dir.resolve("text.parquet");
        Files.writeString(text, "{\"id\": 1}\n");
        Path shorter = write("short.parquet", SCHEMA, rows(2));
        WholeFileDecoding<Row> decoding = WholeFileDecoding.rows(PARQUET, SCHEMA, List.of());

        assertThatThrownBy(() -> readToEnd(decoding, new FileSplit(text.toString(), 0)))
                .isInstanceOf(IOException.class).hasMessageStartingWith("cannot read parquet file " + text + ": ");
        assertThatThrownBy(() -> readToEnd(decoding, new FileSplit(shorter.toString(), 5)))
                .isInstanceOf(IOException.class).hasMessage("file " + shorter + " has 2 records but 5 were "
                        + "already read from it; it was replaced after it was read");
    }

    private static List<Row> rows(int count) {
        return LongStream.range(0, count)
                .mapToObj(id -> Row.of(SCHEMA, id, id % 2 == 0 ? null : "name-" + id + " ☃")).toList();
    }

    private Path write(String name, Schema schema, List<Row> rows) throws IOException {
        Path file = dir.resolve(name);
        try (OutputStream out = Files.newOutputStream(file)) {
            RowFileWriter writer = PARQUET.createFileWriter(schema, out);
            for (Row row : rows) {
                writer.write(row);
            }
            writer.finish();
        }
        return file;
    }

    private List<Row> readToEnd(WholeFileDecoding<Row> decoding, FileSplit split) throws Exception {
        return SingleReader.readToEnd(FileSource.builder(dir.toString(), decoding).build(), split);
    }

    private SourceReader<Row, FileSplit> reader(WholeFileDecoding<Row> decoding) {
        return SingleReader.open(FileSource.builder(dir.toString(), decoding).build());
    }
}
