package dev.onceflow.runtime.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.config.RestartStrategy;
import dev.onceflow.spi.record.Event;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongUnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Event time end to end with the real datagen source and filesystem sink: watermarks from the
 * source, combined over the inputs, and event-time timers in keyed state. Each case checks the
 * committed output row by row against the counts computed from the ids: a timer lost leaves a
 * window out, a timer fired twice (or a late record) doubles it, lost state changes its count.
 */
@Timeout(90)
class EventTimeJobTest {

    private static final AtomicBoolean FAILED_ONCE = new AtomicBoolean();

    @TempDir
    Path dir;

    Path checkpoints;
    Path output;

    @BeforeEach
    void setUp() {
        checkpoints = dir.resolve("checkpoints");
        output = dir.resolve("output");
        FAILED_ONCE.set(false);
    }

    /** Row id -> count of the committed rows; fails on a row committed twice. */
    private static Map<String, Long> committedWindows(Path... directories) throws IOException {
        CommittedOutput out = CommittedOutput.read(directories);
        assertThat(out.hiddenFiles).as("in-progress files left behind").isEmpty();
        Map<String, Long> counts = new TreeMap<>();
        Map<String, Long> twice = new TreeMap<>();
        for (Event event : out.events) {
            if (counts.put(event.id(), event.count()) != null) {
                twice.put(event.id(), event.count());
            }
        }
        assertThat(twice).as("windows emitted more than once").isEmpty();
        return counts;
    }

    private static void assertWindows(Map<String, Long> actual, Map<String, Long> expected) {
        Map<String, Long> missing = new TreeMap<>(expected);
        missing.keySet().removeAll(actual.keySet());
        Map<String, Long> wrong = new TreeMap<>();
        actual.forEach((id, count) -> {
            if (!count.equals(expected.get(id))) {
                wrong.put(id, count);
            }
        });
        assertThat(missing).as("windows never emitted").isEmpty();
        assertThat(wrong).as("windows with a wrong count or not expected at all").isEmpty();
        assertThat(actual).hasSameSizeAs(expected);
    }

    @Test
    void windowsCloseAsTheSlowerInputsEventTimePassesThemAndEachOnce() throws Exception {
        long rows = 20_000;

        JobResult result = new WindowCountJob(checkpoints, output, rows, WindowCountJob.ODD_IDS_LAG)
                .rowsPerSecond(10_000).execute("lagging-input");

        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        assertWindows(committedWindows(output), WindowCountJob.expected(rows, WindowCountJob.ODD_IDS_LAG));
        assertThat(CommittedOutput.read(output).checkpoints)
                .as("windows fired along the way as watermarks advanced, not only at the end of input")
                .hasSizeGreaterThan(3);
    }

    @Test
    void aCrashRestoresPendingTimersSoEveryWindowFiresExactlyOnce() throws Exception {
        long rows = 20_000;

        JobResult result = new WindowCountJob(checkpoints, output, rows, WindowCountJob.ODD_IDS_LAG)
                .rowsPerSecond(8_000)
                .map(event -> failOnceAfterACommit(event, output))
                .restart(RestartStrategy.fixedDelay(3, Duration.ofMillis(10)))
                .execute("crash");

        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        assertThat(result.restarts()).isEqualTo(1);
        // The failure came after a commit, so the second attempt restored a checkpoint in which
        // every key had an open window: those windows' earlier records are not replayed, so only
        // their restored timers and counts can emit them correctly.
        assertWindows(committedWindows(output), WindowCountJob.expected(rows, WindowCountJob.ODD_IDS_LAG));
    }

    @Test
    void timersMoveWithTheirKeyGroupsWhenASavepointIsRestoredAtAnotherParallelism() throws Exception {
        long rows = 12_000;
        LongUnaryOperator timestamps = WindowCountJob.IN_ORDER;
        Path firstOutput = dir.resolve("first");
        Path secondOutput = dir.resolve("second");
        JobClient client = new WindowCountJob(checkpoints, firstOutput, rows, timestamps).parallelism(2)
                .rowsPerSecond(3_000).executeAsync("rescaled");
        await().atMost(Duration.ofSeconds(20)).until(() -> client.progress().recordsRead() >= 1_500);
        CheckpointLocation savepoint = client.triggerSavepoint(true).get(20, TimeUnit.SECONDS);
        JobResult first = client.result().get(20, TimeUnit.SECONDS);
        assertThat(first.recordsRead()).as("stopped mid-run").isLessThan(rows);
        assertThat(committedWindows(firstOutput)).as("some windows closed before the savepoint").isNotEmpty();

        JobResult second = new WindowCountJob(checkpoints, secondOutput, rows, timestamps).parallelism(3)
                .restore(RestoreSetting.fromPath(savepoint)).execute("rescaled");

        assertThat(second.status()).isEqualTo(JobResult.Status.FINISHED);
        Map<String, Long> both = new HashMap<>(committedWindows(firstOutput));
        Map<String, Long> restored = committedWindows(secondOutput);
        assertThat(restored.keySet()).as("no window emitted by both runs").doesNotContainAnyElementsOf(both.keySet());
        both.putAll(restored);
        assertWindows(both, WindowCountJob.expected(rows, timestamps));
        assertThat(CommittedOutput.read(secondOutput).subtasks).as("all three subtasks emitted windows")
                .containsExactly(0, 1, 2);
    }

    @Test
    void aSourceSubtaskWithoutInputGoesIdleAndStopsHoldingBackEventTime() throws Exception {
        // One split for two readers: reader 1 never emits anything, and the source is unbounded, so
        // without idleness its watermark would stay at the beginning of time and no window would close.
        JobClient client = new WindowCountJob(checkpoints, output, 0, WindowCountJob.IN_ORDER).splits(1)
                .idleness(Duration.ofMillis(300)).rowsPerSecond(2_000).executeAsync("idle-reader");

        await().atMost(Duration.ofSeconds(30)).until(() -> CommittedOutput.read(output).events.size() >= 50);
        client.triggerSavepoint(true).get(20, TimeUnit.SECONDS);
        client.result().get(20, TimeUnit.SECONDS);

        Map<String, Long> windows = committedWindows(output);
        assertThat(windows.values()).as("every closed window of ids s..s+99 holds its 10 records per key")
                .containsOnly(10L);
    }

    private static Event failOnceAfterACommit(Event event, Path output) throws IOException {
        if (!FAILED_ONCE.get() && Long.parseLong(event.id()) % 100 == 0 && CommittedOutput.hasCommittedFile(output)
                && FAILED_ONCE.compareAndSet(false, true)) {
            throw new IllegalStateException("injected failure at id " + event.id());
        }
        return event;
    }
}
