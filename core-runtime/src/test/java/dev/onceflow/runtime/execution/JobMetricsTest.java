package dev.onceflow.runtime.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.checkpoint.CheckpointStats;
import dev.onceflow.runtime.checkpoint.CheckpointStorage;
import dev.onceflow.runtime.config.RestartStrategy;
import dev.onceflow.runtime.metrics.JobMetrics;
import dev.onceflow.spi.record.Event;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job's meters count exactly: given a bounded job of {@code rows} ids, every operator received
 * and emitted each record once (summed over its subtasks), the checkpoint meters and history hold
 * exactly the checkpoints that completed, and after injected failures the restart counter equals
 * their number while the record counters went on counting instead of starting over.
 */
@Timeout(60)
class JobMetricsTest {

    private static final Set<String> FAILED_AT = ConcurrentHashMap.newKeySet();

    @TempDir
    Path dir;

    private final MeterRegistry registry = new SimpleMeterRegistry();

    @BeforeEach
    void setUp() {
        FAILED_AT.clear();
    }

    /** Throws the first time one of {@code ids} is seen in this JVM, then lets it pass. */
    private static Event failOnceAtEachOf(Event event, Set<String> ids) {
        if (ids.contains(event.id()) && FAILED_AT.add(event.id())) {
            throw new IllegalStateException("injected failure at id " + event.id());
        }
        return event;
    }

    private List<FunctionCounter> counters(String name, String operator) {
        return List.copyOf(registry.find(name).tag("operator", operator).functionCounters());
    }

    private long total(String name, String operator) {
        return (long) counters(name, operator).stream().mapToDouble(FunctionCounter::count).sum();
    }

    private List<Long> completedIds(JobClient client) {
        return client.checkpointHistory().entries().stream().filter(CheckpointStats::completed)
                .map(CheckpointStats::checkpointId).toList();
    }

    /** Holds each record for {@code micros} on the calling thread, busy, as a slow step does. */
    private static Event slow(Event event, long micros) {
        long end = System.nanoTime() + micros * 1_000;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        return event;
    }

    private double backpressureSeconds(String operator) {
        return registry.find(JobMetrics.BACKPRESSURE_TIME).tag("operator", operator).functionCounters().stream()
                .mapToDouble(FunctionCounter::count).sum();
    }

    /**
     * A step after the count that takes 50 us per record: 30,000 records keep each of its two
     * subtasks busy for 0.75 s, and the channels hold about 8,000 records, so the source's task
     * (whose chain ends in {@code map}) waits for most of that time, and its meter says so.
     */
    @Test
    void aSlowStepDownstreamShowsAsBackpressureOfTheTaskBeforeIt() throws Exception {
        long rows = 30_000;
        JobResult result = new KeyedCountJob(dir.resolve("checkpoints"), dir.resolve("output"), rows)
                .afterCount(event -> slow(event, 50)).meterRegistry(registry).execute("backpressured");

        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        assertThat(result.recordsWritten()).isEqualTo(rows);
        assertThat(backpressureSeconds("map")).as("seconds the source's task waited for channel capacity")
                .isGreaterThan(0.25);
    }

    @Test
    void boundedJobCountsEveryRecordOncePerOperatorAndEveryCompletedCheckpoint() throws Exception {
        long rows = 4_000;
        JobClient client = new KeyedCountJob(dir.resolve("checkpoints"), dir.resolve("output"), rows)
                .rowsPerSecond(10_000).retained(10_000).meterRegistry(registry).executeAsync("counted");

        JobResult result = client.result().get();

        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        assertThat(total(JobMetrics.RECORDS_OUT, "events")).as("records the source emitted").isEqualTo(rows);
        for (String operator : List.of("map", "count")) {
            assertThat(total(JobMetrics.RECORDS_IN, operator)).as("records %s received", operator).isEqualTo(rows);
            assertThat(total(JobMetrics.RECORDS_OUT, operator)).as("records %s emitted", operator).isEqualTo(rows);
        }
        assertThat(total(JobMetrics.RECORDS_IN, "files")).as("records the sink received").isEqualTo(rows);
        assertThat(counters(JobMetrics.RECORDS_IN, "events")).as("a source has no input").isEmpty();
        assertThat(counters(JobMetrics.RECORDS_OUT, "files")).as("a sink has no output").isEmpty();
        assertThat(counters(JobMetrics.RECORDS_IN, "count")).as("one meter per subtask")
                .extracting(c -> c.getId().getTag("subtask")).containsExactlyInAnyOrder("0", "1");
        assertThat(registry.find(JobMetrics.BACKPRESSURE_TIME).functionCounters())
                .as("one per task that writes to channels: those of events+map, tagged with the chain's last operator")
                .hasSize(2).allSatisfy(c -> assertThat(c.getId().getTag("operator")).isEqualTo("map"));

        List<Long> completed = completedIds(client);
        List<Long> onDisk = new CheckpointStorage(CheckpointLocation.of(dir.resolve("checkpoints").resolve("counted")))
                .list().stream().filter(l -> l.status().equals("COMPLETE")).map(CheckpointStorage.Listing::id).toList();
        assertThat(completed).as("the history's completed checkpoints are those on disk (none pruned)")
                .containsExactlyElementsOf(onDisk).hasSizeGreaterThan(2);
        assertThat(client.checkpointHistory().entries()).as("no checkpoint failed").allMatch(CheckpointStats::completed);
        assertThat(registry.get(JobMetrics.CHECKPOINT_DURATION).timer().count()).isEqualTo(completed.size());
        assertThat(registry.get(JobMetrics.CHECKPOINT_ALIGNMENT).timer().count()).isEqualTo(completed.size());
        assertThat(registry.get(JobMetrics.CHECKPOINT_SIZE).summary().totalAmount()).isEqualTo(
                client.checkpointHistory().entries().stream().mapToLong(CheckpointStats::stateBytes).sum());
        assertThat(registry.find(JobMetrics.CHECKPOINT_FAILURES).counters()).isEmpty();
        assertThat(registry.get(JobMetrics.LAST_COMPLETED_CHECKPOINT).gauge().value())
                .isEqualTo(completed.get(completed.size() - 1).doubleValue());
        assertThat(result.lastCheckpoint().name()).isEqualTo("chk-" + completed.get(completed.size() - 1));
        assertThat(registry.get(JobMetrics.RESTARTS).counter().count()).isZero();
        assertThat(registry.get(JobMetrics.RESTARTS).counter().getId().getTag("job")).isEqualTo("counted");
    }

    @Test
    void restartsCounterEqualsInjectedFailuresAndRecordCountersCarryOverAttempts() throws Exception {
        long rows = 4_000;
        // Both in datagen split 1, so one reader meets them in turn: one failure per attempt.
        Set<String> failAt = Set.of("1200", "1800");
        JobClient client = new KeyedCountJob(dir.resolve("checkpoints"), dir.resolve("output"), rows)
                .rowsPerSecond(8_000).retained(10_000).meterRegistry(registry)
                .map(event -> failOnceAtEachOf(event, failAt))
                .restart(RestartStrategy.fixedDelay(3, Duration.ofMillis(10))).executeAsync("restarted");

        JobResult result = client.result().get();

        assertThat(FAILED_AT).containsExactlyInAnyOrderElementsOf(failAt);
        assertThat(result.restarts()).isEqualTo(2);
        assertThat(registry.get(JobMetrics.RESTARTS).counter().count()).isEqualTo(2.0);
        assertThat(counters(JobMetrics.RECORDS_IN, "map")).as("attempts share the meters, one per subtask").hasSize(2);
        // Each failing record reached map, which threw instead of emitting it; everything else map
        // received over the three attempts it emitted.
        assertThat(total(JobMetrics.RECORDS_IN, "map") - total(JobMetrics.RECORDS_OUT, "map")).isEqualTo(2);
        assertThat(total(JobMetrics.RECORDS_IN, "map")).as("replayed records are counted again, never reset")
                .isGreaterThanOrEqualTo(rows + 2);
        List<Long> completed = completedIds(client);
        assertThat(completed).as("history across attempts, in order").isSorted().doesNotHaveDuplicates();
        assertThat(registry.get(JobMetrics.LAST_COMPLETED_CHECKPOINT).gauge().value())
                .isEqualTo(completed.get(completed.size() - 1).doubleValue());
    }
}
