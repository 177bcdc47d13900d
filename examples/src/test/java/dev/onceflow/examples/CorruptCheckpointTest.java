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
 * A corrupted newest checkpoint is detected, logged and skipped in favour of the previous one, and
 * never restored. The job is halted right after the newest checkpoint's metadata is written and
 * before any sink was told to commit it, so restoring the previous checkpoint is still exactly-once.
 */
class CorruptCheckpointTest {

    private static final long ROWS = 20_000;

    @Test
    void flippedByteInAStateFileIsDetectedAndSkipped(@TempDir Path dir) throws Exception {
        Path newest = crashRightAfterACheckpointCompletes(dir);
        Path stateFile;
        try (Stream<Path> files = Files.list(newest)) {
            stateFile = files.filter(p -> p.toString().endsWith(".state")).sorted().findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(stateFile);
        bytes[bytes.length / 2] ^= 0x5A;
        Files.write(stateFile, bytes);

        resumeAndAssertSkipped(dir, newest, "fails its checksum");
    }

    @Test
    void truncatedMetadataIsDetectedAndSkipped(@TempDir Path dir) throws Exception {
        Path newest = crashRightAfterACheckpointCompletes(dir);
        Path metadata = newest.resolve("_metadata");
        try (FileChannel channel = FileChannel.open(metadata, StandardOpenOption.WRITE)) {
            channel.truncate(channel.size() / 2);
        }

        resumeAndAssertSkipped(dir, newest, "truncated");
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

    private static void resumeAndAssertSkipped(Path dir, Path corrupted, String reason) throws Exception {
        Path log = dir.resolve("resume.log");
        JobProcess resumed = JobProcess.start(dir.resolve("job.yaml"), "latest", JobProcess.Faults.NONE, log);
        assertThat(resumed.await(2)).as("log:\n%s", resumed.tail()).isZero();

        String text = Files.readString(log, StandardCharsets.UTF_8);
        long corruptId = Long.parseLong(corrupted.getFileName().toString().substring(4));
        assertThat(text).contains("Skipping checkpoint " + corrupted.getFileName() + ": ").contains(reason);
        assertThat(text).contains("from " + corrupted.resolveSibling("chk-" + (corruptId - 1)) + " (checkpoint "
                + (corruptId - 1) + ")");

        Verdict verdict = CrashTestJobs.verdict(dir, ROWS);
        assertThat(verdict.exactlyOnce()).as(verdict.describe()).isTrue();
    }
}
