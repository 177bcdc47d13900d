package dev.onceflow.connector.filesystem;

import static dev.onceflow.connector.filesystem.WriterCalls.writeAndPreCommit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.conformance.format.TestRows;
import dev.onceflow.format.parquet.ParquetFiles;
import dev.onceflow.format.parquet.ParquetFormatFactory;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FMT-5 in the filesystem sink: a whole-file format's part file is opened at a checkpoint's first
 * row and finished at its pre-commit, then committed by the same 2PC as line files; read back
 * with Parquet's own reader, every row is there once with its exact values.
 */
@SuppressWarnings("try") // TransactionalWriter.close() is declared to throw Exception by the SPI.
class FileSystemSinkParquetTest {

    private static final Schema SCHEMA = TestRows.EVERY_TYPE;

    @TempDir
    Path dir;

    @Test
    void aCheckpointsRowsAreOneParquetFileVisibleOnlyOnceCommitted() throws Exception {
        List<Row> rows = rows(0, 1_000);
        try (TransactionalWriter<Row, FileTransaction> writer = writer("a1")) {
            writer.abortLingering();
            FileTransaction preCommitted = writeAndPreCommit(writer, 1, rows);

            assertThat(visibleFiles()).as("2PC-1: nothing visible before commit").isEmpty();
            assertThat(preCommitted.parts()).singleElement().satisfies(part -> assertThat(part.length())
                    .as("the pre-committed length is the finished file's")
                    .isEqualTo(Files.size(Path.of(part.inProgressPath().substring("file:".length())))));

            writer.commit(preCommitted);
        }

        assertThat(allFiles()).containsExactly("part-0-1-0-a1.parquet");
        assertThat(ParquetFiles.read(dir.resolve("part-0-1-0-a1.parquet"), SCHEMA)).containsExactlyElementsOf(rows);
    }

    @Test
    void everyCheckpointRollsTheFileAndOneWithoutRowsWritesNone() throws Exception {
        try (TransactionalWriter<Row, FileTransaction> writer = writer("a1")) {
            writer.commit(writeAndPreCommit(writer, 1, rows(0, 10)));
            writer.commit(writeAndPreCommit(writer, 2, List.of()));
            writer.commit(writeAndPreCommit(writer, 3, rows(10, 25)));
        }

        assertThat(allFiles()).containsExactly("part-0-1-0-a1.parquet", "part-0-3-0-a1.parquet");
        assertThat(ParquetFiles.read(dir.resolve("part-0-1-0-a1.parquet"), SCHEMA)).containsExactlyElementsOf(rows(0, 10));
        assertThat(ParquetFiles.read(dir.resolve("part-0-3-0-a1.parquet"), SCHEMA)).containsExactlyElementsOf(rows(10, 25));
    }

    /**
     * A crash after the pre-commit of checkpoint 3 and before its commit, with checkpoint 4's file
     * open and unfinished (no footer): recovery commits 3's file from the handle alone, and
     * abortLingering discards 4's, whose rows the source replays.
     */
    @Test
    void aCrashBetweenPreCommitAndCommitCommitsTheFinishedFileAndDiscardsTheOpenOne() throws Exception {
        TransactionalWriter<Row, FileTransaction> crashed = writer("a1");
        byte[] handle = FileTransactionSerializer.INSTANCE.serialize(writeAndPreCommit(crashed, 3, rows(0, 100)));
        FileTransaction open = crashed.beginTransaction(4);
        for (Row row : rows(100, 150)) {
            crashed.write(open, row);
        }
        // Crash: the writer is dropped without close(); nothing else is called.

        try (TransactionalWriter<Row, FileTransaction> recovered = sink().createWriter(
                new SinkContext("job", "sink", 0, 1, 1, OptionalLong.of(3), "a2"))) {
            recovered.recoverAndCommit(FileTransactionSerializer.INSTANCE.deserialize(
                    FileTransactionSerializer.INSTANCE.version(), handle));
            recovered.abortLingering();
        }

        assertThat(allFiles()).containsExactly("part-0-3-0-a1.parquet");
        assertThat(ParquetFiles.read(dir.resolve("part-0-3-0-a1.parquet"), SCHEMA)).containsExactlyElementsOf(rows(0, 100));
    }

    @Test
    void rollingAndLineCompressionOptionsAreRefusedForParquetInOneLine() {
        assertThatThrownBy(() -> rowSink(Map.of("rolling.max-part-bytes", "1000"))).isInstanceOf(OptionException.class)
                .hasMessage("sink 'filesystem': format 'parquet' writes whole files, each finished at a checkpoint: "
                        + "option 'rolling.max-part-bytes' applies to line formats only; the checkpoint interval sets "
                        + "the file size");
        assertThatThrownBy(() -> rowSink(Map.of("rolling.max-part-age", "10s"))).isInstanceOf(OptionException.class)
                .hasMessageContaining("option 'rolling.max-part-age' applies to line formats only");
        assertThatThrownBy(() -> rowSink(Map.of("compression", "gzip"))).isInstanceOf(OptionException.class)
                .hasMessage("sink 'filesystem': format 'parquet' writes whole files, each finished at a checkpoint: "
                        + "option 'compression' applies to line formats only; set the format's own compression option");
        assertThat(rowSink(Map.of("compression", "none"))).isNotNull();
    }

    private Object rowSink(Map<String, String> extra) {
        Map<String, String> raw = new java.util.HashMap<>(extra);
        raw.put("path", dir.toString());
        FileSystemSinkFactory factory = new FileSystemSinkFactory();
        OptionValues options = OptionValues.validate("sink 'filesystem'", raw, factory.options());
        return factory.createRowSink(new SinkFactory.Context() {
            @Override
            public OptionValues options() {
                return options;
            }

            @Override
            public Schema inputSchema() {
                return SCHEMA;
            }

            @Override
            public Optional<Format> format() {
                return Optional.of(parquet());
            }
        });
    }

    private static Format parquet() {
        ParquetFormatFactory factory = new ParquetFormatFactory();
        return new Format(factory, OptionValues.validate("format 'parquet'", Map.of(), factory.options()));
    }

    private FileSystemSink<Row> sink() {
        return FileSystemSink.builder(dir.toString(), LineFormat.rows(parquet(), SCHEMA)).build();
    }

    private TransactionalWriter<Row, FileTransaction> writer(String attempt) throws Exception {
        return sink().createWriter(new SinkContext("job", "sink", 0, 1, 1, OptionalLong.empty(), attempt));
    }

    /** Rows of every type: the edge cases of TestRows, then full rows. */
    private static List<Row> rows(long from, long to) {
        List<Row> rows = new ArrayList<>();
        for (long id = from; id < to; id++) {
            rows.add(switch ((int) (id % 3)) {
                case 0 -> TestRows.full(id);
                case 1 -> TestRows.nulls(id);
                default -> TestRows.extremes(id);
            });
        }
        return rows;
    }

    private List<String> allFiles() throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    private List<String> visibleFiles() throws Exception {
        return allFiles().stream().filter(n -> !n.startsWith(".")).toList();
    }
}
