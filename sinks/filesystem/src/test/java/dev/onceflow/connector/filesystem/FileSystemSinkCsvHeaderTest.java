package dev.onceflow.connector.filesystem;

import static dev.onceflow.connector.filesystem.WriterCalls.writeAndPreCommit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.format.csv.CsvFormatFactory;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FMT-6 in the filesystem sink: with csv's {@code header: true}, every committed part file is
 * valid CSV starting with exactly one header line, also when files roll within a checkpoint and
 * after a crash whose recovery truncates a part file back to its pre-committed length.
 */
@SuppressWarnings("try") // TransactionalWriter.close() is declared to throw Exception by the SPI.
class FileSystemSinkCsvHeaderTest {

    private static final Schema SCHEMA = Schema.of(Field.of("id", DataType.LONG.notNull()),
            Field.of("text, \"quoted\"", DataType.STRING));
    private static final String HEADER = "id,\"text, \"\"quoted\"\"\"\n";

    @TempDir
    Path dir;

    /**
     * Checkpoint 1 committed; checkpoint 2 pre-committed, then bytes written past its last part's
     * pre-committed length and checkpoint 3 half written when the process dies. Recovery commits 2
     * (truncating), discards 3, whose rows are replayed into a new attempt's checkpoint 3.
     */
    @Test
    void everyCommittedFileStartsWithOneHeaderAcrossRollingACrashAndRecovery() throws Exception {
        TransactionalWriter<Row, FileTransaction> crashed = writer(new SinkContext("job", "sink", 0, 1, 1,
                OptionalLong.empty(), "a1"));
        crashed.abortLingering();
        crashed.commit(writeAndPreCommit(crashed, 1, rows(0, 20)));
        FileTransaction preCommitted = writeAndPreCommit(crashed, 2, rows(20, 40));
        byte[] handle = FileTransactionSerializer.INSTANCE.serialize(preCommitted);
        FileTransaction open = crashed.beginTransaction(3);
        for (Row row : rows(40, 45)) {
            crashed.write(open, row);
        }
        PartFile last = preCommitted.parts().get(preCommitted.parts().size() - 1);
        Path lastFile = Path.of(last.inProgressPath().substring("file:".length()));
        // Written after the pre-commit by the dying process: no checkpoint holds it.
        Files.writeString(lastFile, "99,not committed\n", StandardOpenOption.APPEND);
        // Crash: the writer is dropped without close(); nothing else is called.

        try (TransactionalWriter<Row, FileTransaction> recovered = writer(new SinkContext("job", "sink", 0, 1, 1,
                OptionalLong.of(2), "a2"))) {
            recovered.recoverAndCommit(FileTransactionSerializer.INSTANCE.deserialize(
                    FileTransactionSerializer.INSTANCE.version(), handle));
            recovered.abortLingering();
            recovered.commit(writeAndPreCommit(recovered, 3, rows(40, 60)));
        }

        List<String> files = visibleFiles();
        assertThat(preCommitted.parts()).as("checkpoint 2 rolled into several files").hasSizeGreaterThan(1);
        assertThat(files).hasSizeGreaterThan(3)
                .noneMatch(name -> name.startsWith("part-0-3-") && name.endsWith("-a1"));
        assertThat(allFiles()).as("nothing in progress is left").isEqualTo(files);
        RowDecoder decoder = csv().createDecoder(SCHEMA);
        List<Row> read = new ArrayList<>();
        for (String name : files) {
            String text = Files.readString(dir.resolve(name));
            assertThat(text).as(name).startsWith(HEADER);
            String body = text.substring(HEADER.length());
            assertThat(body).as("%s holds one header", name).doesNotContain(HEADER.trim()).isNotEmpty().endsWith("\n");
            for (String line : body.split("\n")) {
                read.add(decoder.decode(line.getBytes(StandardCharsets.UTF_8)));
            }
        }
        assertThat(read).as("every row once").containsExactlyInAnyOrderElementsOf(rows(0, 60));
    }

    private static Format csv() {
        CsvFormatFactory factory = new CsvFormatFactory();
        return new Format(factory, OptionValues.validate("format 'csv'", Map.of("header", "true"), factory.options()));
    }

    private TransactionalWriter<Row, FileTransaction> writer(SinkContext context) throws Exception {
        // small parts, so that checkpoints roll into several files, each of which needs the header
        return FileSystemSink.builder(dir.toString(), LineFormat.rows(csv(), SCHEMA)).maxPartBytes(120).build()
                .createWriter(context);
    }

    private static List<Row> rows(long from, long to) {
        return LongStream.range(from, to).mapToObj(id -> Row.of(SCHEMA, id, id % 3 == 0 ? null : "a, \"b\" " + id))
                .toList();
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
