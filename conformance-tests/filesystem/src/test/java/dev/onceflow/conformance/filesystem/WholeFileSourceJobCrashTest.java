package dev.onceflow.conformance.filesystem;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.onceflow.conformance.JobProcess;
import dev.onceflow.conformance.format.TestRows;
import dev.onceflow.format.json.JsonFormatFactory;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.format.RowFileWriter;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
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
 * A job file reading files of a whole-file format with the file source (FMT-7; files written by the
 * format's writer, as the filesystem sink writes them) into JSON files, crashed mid-read and
 * resumed: every row of the input is in the output exactly once, equal value for value to the row
 * written (nulls, unicode, 38-digit decimals, timestamps to the microsecond, nested rows, arrays and
 * maps). A file that lacks a declared field fails the job with one line naming the file and the
 * field. A format's test names the format and how it words that line.
 */
@Timeout(300)
abstract class WholeFileSourceJobCrashTest {

    private static final Schema SCHEMA = TestRows.EVERY_TYPE;
    private static final int ROWS = 3_000;

    @TempDir
    Path dir;

    /** The format the input files are written in and the source reads. */
    abstract FormatFactory format();

    /** The format's options for the input files (the source uses its defaults). */
    abstract Map<String, String> writerOptions();

    /**
     * The end of the failed job's log line, after {@code cannot read <format> file <path>: }, for a
     * file without the declared field {@code price}, whose first fields are {@code id, flag}: a
     * regular expression.
     */
    abstract String missingPriceField();

    @Test
    void aCrashMidReadAndAResumeGiveEachRowOnceWithItsValues() throws Exception {
        Map<Long, Row> input = writeInput(dir.resolve("input"));
        Path output = dir.resolve("output");
        Path job = writeJob(dir.resolve("job.yaml"), dir.resolve("input"), output, SCHEMA);

        JobProcess crashed = JobProcess.start(job, "latest",
                JobProcess.Faults.haltAt(FaultPoints.SOURCE_BEFORE_BARRIER + "@4"), dir.resolve("crash.log"));
        assertThat(crashed.await(3)).as("halted at a barrier mid-read; log:\n%s", crashed.tail())
                .isEqualTo(FaultPoints.HALT_EXIT_CODE);
        assertThat(committed(output)).as("the crash came mid-run").hasSizeLessThan(ROWS);

        JobProcess resumed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("resume.log"));
        assertThat(resumed.await(3)).as("log:\n%s", resumed.tail()).isZero();

        CrashTestRows.assertEachOnce(input, committed(output));
    }

    @Test
    void aFileWithoutADeclaredFieldFailsTheJobNamingTheFileAndTheField() throws Exception {
        writeInput(dir.resolve("input"));
        Schema declared = Schema.of(List.of(Field.of("id", DataType.LONG), Field.of("price", DataType.DOUBLE)),
                List.of("id"));
        Path job = writeJob(dir.resolve("job.yaml"), dir.resolve("input"), dir.resolve("output"), declared);

        JobProcess failed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("fail.log"));
        int exit = failed.await(3);

        assertThat(exit).as("log:\n%s", failed.tail()).isNotZero().isNotEqualTo(FaultPoints.HALT_EXIT_CODE);
        String name = format().identifier();
        assertThat(Files.readString(dir.resolve("fail.log"))).containsPattern("cannot read " + name + " file \\S*/input/"
                + "(even|odd)\\." + name + ": " + missingPriceField());
    }

    /** The rows in two files, written by the format's writer, so that both subtasks read. */
    private Map<Long, Row> writeInput(Path directory) throws IOException {
        Files.createDirectories(directory);
        FormatFactory format = format();
        String name = format.identifier();
        OptionValues options = OptionValues.validate("format '" + name + "'", writerOptions(), format.options());
        Map<Long, Row> rows = new LinkedHashMap<>();
        try (OutputStream even = Files.newOutputStream(directory.resolve("even." + name));
                OutputStream odd = Files.newOutputStream(directory.resolve("odd." + name))) {
            RowFileWriter evenRows = format.createFileWriter(SCHEMA, options, even);
            RowFileWriter oddRows = format.createFileWriter(SCHEMA, options, odd);
            for (long id = 0; id < ROWS; id++) {
                Row row = CrashTestRows.row(id);
                rows.put(id, row);
                (id % 2 == 0 ? evenRows : oddRows).write(row);
            }
            evenRows.finish();
            oddRows.finish();
        }
        return rows;
    }

    private Path writeJob(Path file, Path input, Path output, Schema schema) throws IOException {
        Map<String, Object> fields = CrashTestRows.jobFields(schema);
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("name", "whole-file-source");
        job.put("parallelism", 2);
        job.put("source", Map.of("type", "file", "uid", "source", "options", Map.of("path", input.toString()),
                "format", format().identifier(), "schema", Map.of("fields", fields, "primary-key", List.of("id"))));
        // Slow enough that the crash at the fourth barrier comes with most rows still to read.
        job.put("steps", List.of(Map.of("type", "throttle", "uid", "throttle",
                "options", Map.of("rows-per-second", 1_000))));
        job.put("sink", Map.of("type", "filesystem", "uid", "sink", "options", Map.of("path", output.toString()),
                "format", "json"));
        job.put("checkpoints", Map.of("interval", "200ms", "mode", "exactly-once",
                "dir", file.resolveSibling("checkpoints").toString()));
        new ObjectMapper(new YAMLFactory()).writeValue(file.toFile(), job);
        return file;
    }

    /** Every row of every visible part file, decoded by the JSON format. */
    private static List<Row> committed(Path output) throws IOException {
        JsonFormatFactory json = new JsonFormatFactory();
        RowDecoder decoder = json.createDecoder(SCHEMA, OptionValues.validate("format 'json'", Map.of(), json.options()));
        List<Row> rows = new ArrayList<>();
        if (!Files.isDirectory(output)) {
            return rows;
        }
        try (Stream<Path> files = Files.list(output)) {
            for (Path file : files.filter(f -> !f.getFileName().toString().startsWith(".")).sorted().toList()) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    try {
                        rows.add(decoder.decode(line.getBytes(StandardCharsets.UTF_8)));
                    } catch (Exception e) {
                        throw new AssertionError("not a JSON row in " + file + ": " + line, e);
                    }
                }
            }
        }
        return rows;
    }
}
