package dev.onceflow.runtime.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.config.RestartStrategy;
import dev.onceflow.spi.record.Event;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * In-process jobs with the real datagen source and filesystem sink: given the ids written and
 * the failure injected, the committed part files hold every id exactly once and every key's
 * running counts exactly 1..n.
 */
@Timeout(60)
class ExactlyOnceJobTest {

    private static final AtomicBoolean FAILED_ONCE = new AtomicBoolean();
    private static final AtomicInteger FAILURES = new AtomicInteger();

    @TempDir
    Path dir;

    Path checkpoints;
    Path output;

    @BeforeEach
    void setUp() {
        checkpoints = dir.resolve("checkpoints");
        output = dir.resolve("output");
        FAILED_ONCE.set(false);
        FAILURES.set(0);
    }

    /** Throws at {@code id} the first time it is seen in this JVM, then passes everything. */
    /**
     * Fails once, at the first record (of every hundredth) seen after the first part file was
     * committed, so the failed attempt has provably committed something whatever the machine's speed.
     */
    private static Event failOnceAfterACommit(Event event, Path output) throws java.io.IOException {
        if (!FAILED_ONCE.get() && Long.parseLong(event.id()) % 100 == 0 && CommittedOutput.hasCommittedFile(output)
                && FAILED_ONCE.compareAndSet(false, true)) {
            FAILURES.incrementAndGet();
            throw new IllegalStateException("injected failure at id " + event.id());
        }
        return event;
    }

    private static Event failOnceAt(Event event, String id) {
        if (event.id().equals(id) && FAILED_ONCE.compareAndSet(false, true)) {
            FAILURES.incrementAndGet();
            throw new IllegalStateException("injected failure at id " + id);
        }
        return event;
    }

    private static void assertExactlyOnce(CommittedOutput out, long rows) {
        out.assertExactlyOnce(rows);
    }

    @Test
    void boundedJobCommitsEveryIdOnceWithExactCountsPerKey() throws Exception {
        long rows = 4_000;

        JobResult result = new KeyedCountJob(checkpoints, output, rows).rowsPerSecond(10_000).execute("bounded");

        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        assertThat(result.restarts()).isZero();
        assertThat(result.recordsRead()).isEqualTo(rows);
        assertThat(result.recordsWritten()).isEqualTo(rows);
        assertThat(result.lastCheckpoint()).isNotNull();
        assertThat(result.lastCheckpoint().toPath().resolve("_metadata")).exists();
        CommittedOutput out = CommittedOutput.read(output);
        assertExactlyOnce(out, rows);
        assertThat(out.subtasks).as("both sink subtasks wrote").containsExactly(0, 1);
        assertThat(out.checkpoints).as("periodic checkpoints committed along the way, not only the final one")
                .hasSizeGreaterThan(2);
    }

    @Test
    void unlimitedRateBoundedJobCommitsEverythingWithItsFinalCheckpoint() throws Exception {
        long rows = 20_000;

        JobResult result = new KeyedCountJob(checkpoints, output, rows).execute("fast");

        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        assertExactlyOnce(CommittedOutput.read(output), rows);
    }

    @Test
    void aFailedTaskRestartsFromTheLastCheckpointInProcessAndOutputStaysExactlyOnce() throws Exception {
        // Long enough (2 s) that the source is still reading when the first commit becomes visible,
        // even on a loaded machine where channels let the source run far ahead of the sink.
        long rows = 16_000;

        JobResult result = new KeyedCountJob(checkpoints, output, rows)
                .rowsPerSecond(8_000)
                .map(event -> failOnceAfterACommit(event, output))
                .restart(RestartStrategy.fixedDelay(3, Duration.ofMillis(10)))
                .execute("restarting");

        assertThat(FAILURES).hasValue(1);
        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        assertThat(result.restarts()).isEqualTo(1);
        CommittedOutput out = CommittedOutput.read(output);
        assertExactlyOnce(out, rows);
        assertThat(out.attempts).as("the first attempt committed part files before it failed, "
                + "so the second one continued from a checkpoint instead of starting over").hasSize(2);
    }

    @Test
    void withoutRestartsAFailureFailsTheJobNamingTheTask() throws Exception {
        // id 2001 is in datagen split 1 of 4, read by subtask 1 of 2
        KeyedCountJob job = new KeyedCountJob(checkpoints, output, 4_000)
                .rowsPerSecond(8_000)
                .map(event -> failOnceAt(event, "2001"))
                .restart(RestartStrategy.none());

        assertThatThrownBy(() -> job.execute("fail-fast"))
                .isInstanceOf(JobExecutionException.class)
                .hasMessageStartingWith("job fail-fast failed: ")
                .hasMessageContaining("stage0[1] failed")
                .hasMessageContaining("injected failure at id 2001")
                .hasRootCauseInstanceOf(IllegalStateException.class);
        assertThat(FAILURES).hasValue(1);
        CommittedOutput out = CommittedOutput.read(output);
        assertThat(out.duplicated()).isEmpty();
        assertThat(out.occurrences).doesNotContainKey("2001");
    }

    @Test
    void aJobNameThatCannotNameADirectoryIsRejectedBeforeStarting() {
        KeyedCountJob job = new KeyedCountJob(checkpoints, output, 10);

        assertThatThrownBy(() -> job.executeAsync("../escape")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job name '../escape'");
        assertThatThrownBy(() -> job.executeAsync("..")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job name '..'");
        assertThatThrownBy(() -> job.executeAsync("n".repeat(StreamEnvironment.MAX_JOB_NAME_LENGTH + 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected 1 to 100 letters");
        assertThat(Files.exists(checkpoints)).isFalse();
    }
}
