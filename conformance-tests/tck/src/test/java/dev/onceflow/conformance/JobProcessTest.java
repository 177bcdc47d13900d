package dev.onceflow.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job processes a case starts are stopped when the case ends, whatever state it ended in, and
 * leave no temp files; they start from an archive of their classes once one fault-free run has
 * written it.
 */
class JobProcessTest {

    @Test
    void killAllStopsEveryJobStillRunningAndForgetsThoseThatEnded(@TempDir Path work) throws Exception {
        JobProcess[] jobs = oneRunningOneEnded(work);
        JobProcess first = jobs[0];
        JobProcess second = jobs[1]; // ended before the case did: nothing left to kill

        assertThat(first.tempDirectory()).as("a running job's temp directory").isDirectory();
        assertThat(first.command()).as("the running job's command")
                .contains("-Djava.io.tmpdir=" + first.tempDirectory());
        assertThat(JobProcess.killAll()).isEqualTo(1);
        assertThat(first.isAlive()).isFalse();
        assertThat(JobProcess.killAll()).isZero();
        // A killed JVM deletes nothing in its temp directory; the suite deletes the directory.
        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(first.tempDirectory()).as("the killed job's temp directory").doesNotExist();
            assertThat(second.tempDirectory()).as("the other killed job's temp directory").doesNotExist();
        });
        assertThat(first.tempDirectory()).isNotEqualTo(second.tempDirectory());
    }

    @Test
    void atExitEveryJobIsKilledAndItsTempDirectoryDeletedBeforeTheHookReturns(@TempDir Path work) throws Exception {
        JobProcess[] jobs = oneRunningOneEnded(work);
        JobProcess running = jobs[0];
        JobProcess ended = jobs[1];
        // Enough files that deleting them takes longer than the assertions below.
        for (int i = 0; i < 5_000; i++) {
            Files.createFile(running.tempDirectory().resolve("left-" + i));
        }

        JobProcess.killAndAwaitCleanup(Duration.ofSeconds(15));

        // No waiting here: the JVM exits once its exit hook, which does this, has returned.
        assertThat(running.isAlive()).isFalse();
        assertThat(running.tempDirectory()).as("the running job's temp directory").doesNotExist();
        assertThat(ended.tempDirectory()).as("the ended job's temp directory").doesNotExist();
        assertThat(JobProcess.killAll()).isZero();
    }

    @Test
    void aJobThatCannotStartLeavesNoTempDirectoryAndLeavesTheArchiveToALaterRun(@TempDir Path work) throws Exception {
        Path tempRoot = Files.createDirectory(work.resolve("tmp"));
        // A target of its own, so that this run is the one picked to write its archive.
        ExecutionTarget target = new ExecutionTarget("onceflow-failed-start-test", ExecutionTarget.ONCEFLOW.mainClass(),
                ExecutionTarget.ONCEFLOW.jvmOptions(), ExecutionTarget.ONCEFLOW.checkpointTimedOut());
        // The job's working directory is the job file's: a missing one fails the start itself.
        Path elsewhere = work.resolve("missing").resolve("job.yaml");

        assertThatThrownBy(() -> JobProcess.start(target, elsewhere, "latest", JobProcess.Faults.NONE,
                work.resolve("job.log"), tempRoot)).isInstanceOf(java.io.IOException.class);

        try (Stream<Path> left = Files.list(tempRoot)) {
            assertThat(left).as("temp directories left").isEmpty();
        }
        ClassDataSharing sharing = ClassDataSharing.get();
        Assumptions.assumeTrue(sharing != null, "-D" + ClassDataSharing.PROPERTY + "=false turned it off");
        Assumptions.assumeTrue(sharing.hasRoom(), sharing.room());
        assertThat(sharing.options(target, true).writesArchive()).as("a later fault-free run writes the archive").isTrue();
        sharing.notStarted(target);
    }

    @Test
    void laterRunsLoadTheirClassesFromTheArchiveOfTheFirstFaultFreeRun(@TempDir Path work) throws Exception {
        // -Xshare:on: a child whose archive does not match its JVM or class path fails to start,
        // rather than quietly loading its classes as usual.
        List<String> options = new ArrayList<>(ExecutionTarget.ONCEFLOW.jvmOptions());
        options.addAll(List.of("-Xshare:on", "-Xlog:class+load=info"));
        ExecutionTarget target = new ExecutionTarget("onceflow-archive-test", ExecutionTarget.ONCEFLOW.mainClass(),
                options, ExecutionTarget.ONCEFLOW.checkpointTimedOut());
        ClassDataSharing sharing = ClassDataSharing.get();
        Assumptions.assumeTrue(sharing != null, "-D" + ClassDataSharing.PROPERTY + "=false turned it off");
        String fromArchive = "dev.onceflow.runtime.cli.OnceflowCli source: shared objects file (top)";

        assertThat(sharing.options(target, false).jvmOptions()).as("a run with a fault armed writes no archive").isEmpty();
        // Otherwise the wait below would time out without saying why.
        assertThat(sharing.hasRoom()).as(sharing.room()).isTrue();

        Path firstLog = work.resolve("first.log");
        JobProcess first = JobProcess.start(target, job(work, "first"), "latest", JobProcess.Faults.NONE, firstLog);
        assertThat(first.await(2)).as("log:%n%s", first.tail()).isZero();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> sharing.ready(target));
        assertThat(Files.readString(firstLog, StandardCharsets.UTF_8)).doesNotContain(fromArchive);

        Path secondLog = work.resolve("second.log");
        JobProcess second = JobProcess.start(target, job(work, "second"), "latest", JobProcess.Faults.NONE, secondLog);
        assertThat(second.await(2)).as("log:%n%s", second.tail()).isZero();
        assertThat(Files.readString(secondLog, StandardCharsets.UTF_8)).contains(fromArchive);
    }

    /** Two jobs that run until killed, the second already killed; checks the first runs. */
    private static JobProcess[] oneRunningOneEnded(Path work) throws Exception {
        Path jobFile = endlessJob(work);
        Path log = work.resolve("job.log");
        JobProcess running = JobProcess.start(jobFile, "latest", JobProcess.Faults.NONE, log);
        JobProcess ended = JobProcess.start(jobFile, "latest", JobProcess.Faults.NONE, log);
        ended.kill();
        assertThat(running.isAlive()).as("log:%n%s", Files.exists(log) ? running.tail() : "").isTrue();
        return new JobProcess[] {running, ended};
    }

    /** A job that runs until killed: a million rows at 100 per second. */
    private static Path endlessJob(Path work) throws java.io.IOException {
        JobSpec spec = JobSpec.of("datagen", Map.of("rows", 1_000_000, "keys", 3), "filesystem",
                Map.of("path", work.resolve("out").toString()), 100, work);
        return spec.write(work.resolve("job.yaml"));
    }

    /** A short bounded job of its own in {@code work/name}. */
    private static Path job(Path work, String name) throws java.io.IOException {
        Path directory = Files.createDirectories(work.resolve(name));
        JobSpec spec = JobSpec.of("datagen", Map.of("rows", 500, "keys", 3), "filesystem",
                Map.of("path", directory.resolve("out").toString()), 5_000, directory);
        return spec.write(directory.resolve("job.yaml"));
    }
}
