package dev.onceflow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.JobProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user sees when running the README's job: the CLI's own lines only, and its log at INFO
 * and above in the CLI's format. Libraries' DEBUG output (Hadoop's, Micrometer's) on standard
 * output buried them once, when logging was set up before the CLI had chosen its configuration.
 */
@Timeout(120)
class CliOutputTest {

    @TempDir
    Path dir;

    @Test
    void theReadmeJobPrintsTheCliLinesAndNoLibraryDebugOutput() throws Exception {
        Path job = dir.resolve("keyed-count.yaml");
        Files.writeString(job, Files.readString(Path.of("keyed-count.yaml"))
                .replace("rows: 200000", "rows: 2000").replace("rows-per-second: 50000", "rows-per-second: 4000"));
        Path log = dir.resolve("run.log");
        JobProcess run = JobProcess.start(job, "latest", JobProcess.Faults.NONE, log);
        assertThat(run.await(1)).as("log:\n%s", run.tail()).isZero();

        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        assertThat(lines).as("output:\n%s", String.join("\n", lines))
                .noneMatch(line -> line.contains("DEBUG"))
                .noneMatch(line -> line.startsWith("\tat ") || line.startsWith("java."))
                .allMatch(line -> line.startsWith("=== onceflow run") // JobProcess's header, not the CLI's
                        || line.startsWith("Job keyed-count: datagen -> count-by-key -> filesystem; ")
                        || line.startsWith("Status page: http://127.0.0.1:")
                        || line.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (INFO |WARN |ERROR) \\S+ - .*")
                        || line.startsWith("Job keyed-count finished: read 2000 records, wrote 2000 records")
                        || line.startsWith("Committed output: ")
                        || line.startsWith("Last checkpoint: ")
                        || line.startsWith("To resume this job after a crash: "));
    }
}
