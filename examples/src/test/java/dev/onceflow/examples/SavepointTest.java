package dev.onceflow.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.runtime.cli.OnceflowCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A stop-with-savepoint taken from the CLI mid-run, resumed later, gives the uninterrupted output. */
class SavepointTest {

    private static final long ROWS = 40_000;

    @Test
    void savepointTakenMidRunAndResumedGivesTheUninterruptedOutput(@TempDir Path dir) throws Exception {
        Path interrupted = Files.createDirectories(dir.resolve("interrupted"));
        Path job = CrashTestJobs.write(interrupted, ROWS, 8_000, "exactly-once", "200ms");
        Path log = interrupted.resolve("child.log");
        ChildJob running = ChildJob.start(job, null, log, "latest");
        Path jobDirectory = CrashTestJobs.jobDirectory(interrupted);
        await().atMost(Duration.ofMinutes(1)).until(() -> Files.exists(jobDirectory.resolve("_control.json"))
                && CommittedOutput.read(CrashTestJobs.output(interrupted)).lines > 0);

        StringWriter out = new StringWriter();
        int status = new picocli.CommandLine(new OnceflowCli())
                .setOut(new PrintWriter(out)).setErr(new PrintWriter(out))
                .execute("savepoint", jobDirectory.toString(), "--stop");
        assertThat(status).as("savepoint command output: %s", out).isZero();
        assertThat(running.await(1, TimeUnit.MINUTES)).as("stopped job; log:\n%s", running.tail()).isZero();
        String printed = out.toString().trim();
        assertThat(printed).startsWith("Savepoint written to ");
        Path savepoint = Path.of(printed.substring("Savepoint written to ".length(), printed.indexOf(';')));
        assertThat(savepoint.resolve("_metadata")).exists();
        assertThat(CommittedOutput.read(CrashTestJobs.output(interrupted)).lost(ROWS))
                .as("the job was stopped mid-run").isNotEmpty();

        ChildJob resumed = ChildJob.start(job, null, log, savepoint.toString());
        assertThat(resumed.await(2, TimeUnit.MINUTES)).as("resumed; log:\n%s", resumed.tail()).isZero();

        Path uninterrupted = Files.createDirectories(dir.resolve("uninterrupted"));
        ChildJob straight = ChildJob.start(CrashTestJobs.write(uninterrupted, ROWS, 0, "exactly-once", "200ms"), null,
                uninterrupted.resolve("child.log"), "latest");
        assertThat(straight.await(2, TimeUnit.MINUTES)).isZero();

        CommittedOutput resumedOutput = CommittedOutput.read(CrashTestJobs.output(interrupted));
        CommittedOutput straightOutput = CommittedOutput.read(CrashTestJobs.output(uninterrupted));
        assertThat(resumedOutput.lost(ROWS)).isEmpty();
        assertThat(resumedOutput.duplicated()).isEmpty();
        assertThat(resumedOutput.occurrences).isEqualTo(straightOutput.occurrences);
        assertThat(sorted(resumedOutput.countsByKey)).isEqualTo(sorted(straightOutput.countsByKey));
        assertThat(resumedOutput.wrongCounts(ROWS, CrashTestJobs.KEYS)).isEmpty();
    }

    private static Map<String, List<Long>> sorted(Map<String, List<Long>> counts) {
        Map<String, List<Long>> sorted = new HashMap<>();
        counts.forEach((key, values) -> sorted.put(key, values.stream().sorted().toList()));
        return sorted;
    }
}
