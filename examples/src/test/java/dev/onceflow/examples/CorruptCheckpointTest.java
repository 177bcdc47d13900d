package dev.onceflow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.JobProcess;
import dev.onceflow.conformance.Verdict;
import dev.onceflow.runtime.fault.FaultPoints;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A corrupted newest checkpoint is detected and never restored, and neither is the one before it
 * (EO-5): once a checkpoint's {@code _metadata} is written its output may be committed, so going
 * back past it would write that output twice. The resume is refused in one line naming the
 * checkpoint and the choices; once the checkpoint is repaired, {@code --resume latest} finishes the
 * job exactly once. The job is halted right after the newest checkpoint completes and before any
 * sink was told to commit it, the moment when a fallback would have been harmless, and still the
 * runtime cannot tell that from the outside: it refuses.
 */
class CorruptCheckpointTest {

    private static final long ROWS = 20_000;

    @Test
    void flippedByteInAStateFileIsRefusedUntilRepaired(@TempDir Path dir) throws Exception {
        Path newest = crashRightAfterACheckpointCompletes(dir);
        Path stateFile;
        try (Stream<Path> files = Files.list(newest)) {
            stateFile = files.filter(p -> p.toString().endsWith(".state")).sorted().findFirst().orElseThrow();
        }
        byte[] intact = Files.readAllBytes(stateFile);
        byte[] bytes = intact.clone();
        bytes[bytes.length / 2] ^= 0x5A;
        Files.write(stateFile, bytes);

        resumeAndAssertRefused(dir, newest, "fails its checksum");

        Files.write(stateFile, intact);
        resumeAndAssertExactlyOnce(dir);
    }

    @Test
    void truncatedMetadataIsRefusedUntilRepaired(@TempDir Path dir) throws Exception {
        Path newest = crashRightAfterACheckpointCompletes(dir);
        Path metadata = newest.resolve("_metadata");
        byte[] intact = Files.readAllBytes(metadata);
        try (FileChannel channel = FileChannel.open(metadata, StandardOpenOption.WRITE)) {
            channel.truncate(channel.size() / 2);
        }

        resumeAndAssertRefused(dir, newest, "truncated");

        Files.write(metadata, intact);
        resumeAndAssertExactlyOnce(dir);
    }

    private static Path crashRightAfterACheckpointCompletes(Path dir) throws Exception {
        Path job = CrashTestJobs.write(dir, ROWS, 10_000, "exactly-once", "100ms");
        JobProcess crashed = JobProcess.start(job, "latest",
                JobProcess.Faults.haltAt(FaultPoints.COORDINATOR_AFTER_COMPLETE_BEFORE_NOTIFY + "@4"), dir.resolve("crash.log"));
        assertThat(crashed.await(2)).isEqualTo(FaultPoints.HALT_EXIT_CODE);
        try (Stream<Path> dirs = Files.list(CrashTestJobs.jobDirectory(dir))) {
            return dirs.filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .filter(p -> Files.exists(p.resolve("_metadata")))
                    .max(Comparator.comparingLong(p -> Long.parseLong(p.getFileName().toString().substring(4))))
                    .orElseThrow();
        }
    }

    private static void resumeAndAssertRefused(Path dir, Path corrupted, String reason) throws Exception {
        Path log = dir.resolve("refused.log");
        JobProcess refused = JobProcess.start(dir.resolve("job.yaml"), "latest", JobProcess.Faults.NONE, log);
        assertThat(refused.await(2)).as("log:\n%s", refused.tail()).isEqualTo(2);

        String text = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(text.lines().filter(line -> line.startsWith("onceflow: ")))
                .as("one line on the console; log:\n%s", text).singleElement().asString()
                .startsWith("onceflow: " + corrupted.getFileName() + " is the newest completed checkpoint of job"
                        + " crash-test and cannot be read (")
                .contains(reason)
                .contains("sinks may already have committed its output")
                .contains("--accept-duplicates");
        assertThat(text).as("no fallback").doesNotContain("Restoring job");
    }

    private static void resumeAndAssertExactlyOnce(Path dir) throws Exception {
        JobProcess resumed = JobProcess.start(dir.resolve("job.yaml"), "latest", JobProcess.Faults.NONE,
                dir.resolve("resume.log"));
        assertThat(resumed.await(2)).as("log:\n%s", resumed.tail()).isZero();

        Verdict verdict = CrashTestJobs.verdict(dir, ROWS);
        assertThat(verdict.exactlyOnce()).as(verdict.describe()).isTrue();
    }
}
