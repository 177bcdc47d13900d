package dev.onceflow.conformance.filesystem;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.onceflow.conformance.JobProcess;
import dev.onceflow.conformance.format.TestRows;
import dev.onceflow.format.json.JsonFormatFactory;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job file writing rows of every type in a whole-file format (FMT-5), crashed between a
 * pre-commit and its commit and resumed: read back with the format library's own reader, every
 * input row is in the committed files exactly once, equal to the row that was read, value for value
 * (nulls, unicode, 38-digit decimals, timestamps to the microsecond, nested rows, arrays and maps).
 * A format's test names the format, its options and its library's reader.
 */
@Timeout(300)
abstract class WholeFileSinkJobCrashTest {

    private static final Schema SCHEMA = TestRows.EVERY_TYPE;
    private static final int ROWS = 3_000;

    @TempDir
    Path dir;

    /** The sink's {@code format:} entry: type and options. */
    abstract Map<String, Object> sinkFormat();

    /** The end of a committed part file's name, such as {@code .parquet}. */
    abstract String extension();

    /** Every row of {@code file}, read with the format library's own reader, not the format's. */
    abstract List<Row> read(Path file, Schema schema) throws IOException;

    @Test
    void aCrashBetweenPreCommitAndCommitAndAResumeGiveEachRowOnceWithItsValues() throws Exception {
        Map<Long, Row> input = writeInput(dir.resolve("input"));
        Path output = dir.resolve("output");
        Path job = writeJob(dir.resolve("job.yaml"), dir.resolve("input"), output);

        JobProcess crashed = JobProcess.start(job, "latest",
                JobProcess.Faults.haltAt(FaultPoints.SINK_AFTER_PRECOMMIT + "@3"), dir.resolve("crash.log"));
        assertThat(crashed.await(3)).as("halted between a pre-commit and its commit; log:\n%s", crashed.tail())
                .isEqualTo(FaultPoints.HALT_EXIT_CODE);
        assertThat(committed(output)).as("the crash came mid-run").hasSizeLessThan(ROWS);
        assertThat(hiddenFiles(output)).as("a finished, pre-committed file waits for its commit").isNotEmpty();

        JobProcess resumed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("resume.log"));
        assertThat(resumed.await(3)).as("log:\n%s", resumed.tail()).isZero();

        CrashTestRows.assertEachOnce(input, committed(output));
        assertThat(hiddenFiles(output)).as("nothing left in progress").isEmpty();
    }

    /** The rows as JSON lines in two files, so that both subtasks write. */
    private static Map<Long, Row> writeInput(Path directory) throws IOException {
        Files.createDirectories(directory);
        JsonFormatFactory json = new JsonFormatFactory();
        RowEncoder encoder = json.createEncoder(SCHEMA, OptionValues.validate("format 'json'", Map.of(), json.options()));
        Map<Long, Row> rows = new LinkedHashMap<>();
        try (OutputStream even = Files.newOutputStream(directory.resolve("even.json"));
                OutputStream odd = Files.newOutputStream(directory.resolve("odd.json"))) {
            for (long id = 0; id < ROWS; id++) {
                Row row = CrashTestRows.row(id);
                rows.put(id, row);
                OutputStream out = id % 2 == 0 ? even : odd;
                out.write(encoder.encode(row));
                out.write('\n');
            }
        }
        return rows;
    }

    private Path writeJob(Path file, Path input, Path output) throws IOException {
        Map<String, Object> fields = CrashTestRows.jobFields(SCHEMA);
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("name", "whole-file-rows");
        job.put("parallelism", 2);
        job.put("source", Map.of("type", "file", "uid", "source", "options", Map.of("path", input.toString()),
                "format", "json", "schema", Map.of("fields", fields, "primary-key", List.of("id"))));
        // Slow enough that the crash at the third pre-commit comes with most rows still to read.
        job.put("steps", List.of(Map.of("type", "throttle", "uid", "throttle",
                "options", Map.of("rows-per-second", 1_000))));
        job.put("sink", Map.of("type", "filesystem", "uid", "sink", "options", Map.of("path", output.toString()),
                "format", sinkFormat()));
        job.put("checkpoints", Map.of("interval", "200ms", "mode", "exactly-once",
                "dir", file.resolveSibling("checkpoints").toString()));
        new ObjectMapper(new YAMLFactory()).writeValue(file.toFile(), job);
        return file;
    }

    /** Every row of every visible part file, read with the format library's reader. */
    private List<Row> committed(Path output) throws IOException {
        List<Row> rows = new ArrayList<>();
        for (Path file : files(output)) {
            if (!file.getFileName().toString().startsWith(".")) {
                assertThat(file.getFileName().toString()).endsWith(extension());
                rows.addAll(read(file, SCHEMA));
            }
        }
        return rows;
    }

    private static List<Path> hiddenFiles(Path output) throws IOException {
        return files(output).stream().filter(f -> f.getFileName().toString().startsWith(".")).toList();
    }

    private static List<Path> files(Path output) throws IOException {
        if (!Files.isDirectory(output)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(output)) {
            return files.sorted().toList();
        }
    }
}
