package dev.onceflow.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.conformance.JobProcess;
import dev.onceflow.conformance.Verdict;
import dev.onceflow.runtime.cli.OnceflowCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
        JobProcess running = JobProcess.start(job, "latest", JobProcess.Faults.NONE, log);
        Path jobDirectory = CrashTestJobs.jobDirectory(interrupted);
        await().atMost(Duration.ofMinutes(1)).until(() -> Files.exists(jobDirectory.resolve("_control.json"))
                && CrashTestJobs.verdict(interrupted, ROWS).committedRecords() > 0);

        StringWriter out = new StringWriter();
        int status = new picocli.CommandLine(new OnceflowCli())
                .setOut(new PrintWriter(out)).setErr(new PrintWriter(out))
                .execute("savepoint", jobDirectory.toString(), "--stop");
        assertThat(status).as("savepoint command output: %s", out).isZero();
        assertThat(running.await(1)).as("stopped job; log:\n%s", running.tail()).isZero();
        String printed = out.toString().trim();
        assertThat(printed).startsWith("Savepoint written to ");
        Path savepoint = Path.of(printed.substring("Savepoint written to ".length(), printed.indexOf(';')));
        assertThat(savepoint.resolve("_metadata")).exists();
        assertThat(CrashTestJobs.verdict(interrupted, ROWS).lost()).as("the job was stopped mid-run").isNotEmpty();

        JobProcess resumed = JobProcess.start(job, savepoint.toString(), JobProcess.Faults.NONE, log);
        assertThat(resumed.await(2)).as("resumed; log:\n%s", resumed.tail()).isZero();

        Path uninterrupted = Files.createDirectories(dir.resolve("uninterrupted"));
        JobProcess straight = JobProcess.start(CrashTestJobs.write(uninterrupted, ROWS, 0, "exactly-once", "200ms"),
                "latest", JobProcess.Faults.NONE, uninterrupted.resolve("child.log"));
        assertThat(straight.await(2)).isZero();

        Verdict resumedVerdict = CrashTestJobs.verdict(interrupted, ROWS);
        Verdict straightVerdict = CrashTestJobs.verdict(uninterrupted, ROWS);
        assertThat(resumedVerdict.exactlyOnce()).as(resumedVerdict.describe()).isTrue();
        assertThat(straightVerdict.exactlyOnce()).as(straightVerdict.describe()).isTrue();
        // Both hold every id once with every key's counts 1..n: the same output up to order.
        assertThat(resumedVerdict.committedRecords()).isEqualTo(straightVerdict.committedRecords());
    }
}
