package dev.onceflow.runtime.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.onceflow.runtime.checkpoint.CheckpointKind;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.checkpoint.CheckpointStorage;
import dev.onceflow.runtime.checkpoint.RestoredCheckpoint;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.config.CheckpointingMode;
import dev.onceflow.runtime.config.RestartStrategy;
import dev.onceflow.runtime.metrics.JobMetrics;
import dev.onceflow.runtime.task.InFlightRecords;
import dev.onceflow.spi.record.Event;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Unaligned checkpoints under backpressure: a slow step after the keyed count fills the channels
 * into it, so every checkpoint stores records in flight. A restore (after a failure, or from a
 * retained checkpoint at another parallelism) processes those records again before anything else,
 * and the committed output still holds every id once with exact counts per key. Without the
 * replay, the records in flight at the restored checkpoint are lost.
 */
@Timeout(120)
class UnalignedCheckpointTest {

    private static final long ROWS = 30_000;
    private static final AtomicBoolean FAILED_ONCE = new AtomicBoolean();
    /** While set, the step after the count takes about this long per record (backpressure). */
    private static volatile long slowNanos;

    @TempDir
    Path dir;

    Path checkpoints;
    Path output;

    @BeforeEach
    void setUp() {
        checkpoints = dir.resolve("checkpoints");
        output = dir.resolve("output");
        FAILED_ONCE.set(false);
        slowNanos = 0;
    }

    private static Event slow(Event event) {
        long nanos = slowNanos;
        if (nanos > 0) {
            LockSupport.parkNanos(nanos);
        }
        return event;
    }

    private static double inFlightStored(MeterRegistry registry) {
        return registry.find(JobMetrics.IN_FLIGHT_RECORDS).counters().stream().mapToDouble(Counter::count).sum();
    }

    private static long completedCheckpoints(JobClient client) {
        return client.checkpointHistory().entries().stream()
                .filter(c -> c.completed() && c.kind() == CheckpointKind.CHECKPOINT).count();
    }

    private static void assertExactlyOnce(CommittedOutput out) {
        out.assertExactlyOnce(ROWS);
    }

    /** Fails once, in the slow step, after unaligned checkpoints stored records in flight. */
    private static Event failOnceAfterInFlightWasStored(Event event, MeterRegistry registry, Path output)
            throws Exception {
        if (!FAILED_ONCE.get() && inFlightStored(registry) > 0 && CommittedOutput.hasCommittedFile(output)
                && FAILED_ONCE.compareAndSet(false, true)) {
            slowNanos = 0;
            throw new IllegalStateException("injected failure at id " + event.id());
        }
        return slow(event);
    }

    @Test
    void aFailureUnderBackpressureRestoresTheRecordsInFlightExactlyOnce() throws Exception {
        slowNanos = TimeUnit.MICROSECONDS.toNanos(100);
        MeterRegistry registry = new SimpleMeterRegistry();
        KeyedCountJob job = new KeyedCountJob(checkpoints, output, ROWS).unaligned(true).meterRegistry(registry)
                .afterCount(event -> failOnceAfterInFlightWasStored(event, registry, output))
                .restart(RestartStrategy.fixedDelay(2, Duration.ofMillis(100)));

        JobResult result = job.execute("unaligned-failover");

        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        assertThat(FAILED_ONCE).as("the failure was injected").isTrue();
        assertThat(inFlightStored(registry)).as("records in flight stored by unaligned checkpoints").isPositive();
        assertExactlyOnce(CommittedOutput.read(output));
    }

    @ParameterizedTest(name = "restored at parallelism {0}")
    @ValueSource(ints = {2, 3, 1})
    void aRetainedUnalignedCheckpointRestoresItsRecordsInFlightAtAnyParallelism(int parallelism) throws Exception {
        slowNanos = TimeUnit.MICROSECONDS.toNanos(200);
        MeterRegistry registry = new SimpleMeterRegistry();
        JobClient first = new KeyedCountJob(checkpoints, output, ROWS).unaligned(true).meterRegistry(registry)
                .afterCount(UnalignedCheckpointTest::slow).executeAsync("unaligned-rescale");
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> completedCheckpoints(first) >= 3
                    && inFlightStored(registry) > 0 && CommittedOutput.hasCommittedFile(output));
        } finally {
            first.cancel();
        }
        assertThat(first.result().get(30, TimeUnit.SECONDS).status()).isEqualTo(JobResult.Status.CANCELLED);
        slowNanos = 0;
        long readBefore = CommittedOutput.read(output).lines;
        assertThat(readBefore).as("the first run committed part of the input only").isBetween(1L, ROWS - 1);

        JobResult second = new KeyedCountJob(checkpoints, output, ROWS).unaligned(true).parallelism(parallelism)
                .afterCount(UnalignedCheckpointTest::slow).restore(RestoreSetting.latest()).execute("unaligned-rescale");

        assertThat(second.status()).isEqualTo(JobResult.Status.FINISHED);
        assertExactlyOnce(CommittedOutput.read(output));
    }

    @Test
    void aRetainedUnalignedCheckpointDoesNotRestoreIntoAJobOfAnotherShape() throws Exception {
        slowNanos = TimeUnit.MICROSECONDS.toNanos(200);
        MeterRegistry registry = new SimpleMeterRegistry();
        JobClient first = new KeyedCountJob(checkpoints, output, ROWS).unaligned(true).meterRegistry(registry)
                .afterCount(UnalignedCheckpointTest::slow).executeAsync("unaligned-reshaped");
        CheckpointLocation newest;
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> completedCheckpoints(first) >= 3
                    && inFlightStored(registry) > 0);
        } finally {
            first.cancel();
        }
        first.result().handle((r, e) -> r).get(30, TimeUnit.SECONDS);
        long id = first.checkpointHistory().entries().stream()
                .filter(c -> c.completed() && c.kind() == CheckpointKind.CHECKPOINT)
                .mapToLong(c -> c.checkpointId()).max().orElseThrow();
        newest = first.jobDirectory().resolve("chk-" + id);
        assertThat(holdsRecordsInFlight(newest, "count")).as("the newest checkpoint stored records in flight").isTrue();
        slowNanos = 0;
        // "count" is now the second step of its stage: records in flight into it could not be replayed.
        KeyedCountJob reshaped = new KeyedCountJob(checkpoints, output, ROWS).unaligned(true).countUid("count-new")
                .afterCount(event -> event).afterCountUid("count").allowNonRestoredState(true)
                .restore(RestoreSetting.fromPath(newest));

        assertThatThrownBy(() -> reshaped.execute("unaligned-reshaped"))
                .isInstanceOf(JobExecutionException.class)
                .hasMessageContaining("holds records in flight into 'count', which is no longer the first step of"
                        + " its stage")
                .hasMessageContaining("take a savepoint");
    }

    /** Whether any former subtask of {@code uid} stored records in flight in {@code checkpoint}. */
    private static boolean holdsRecordsInFlight(CheckpointLocation checkpoint, String uid) throws Exception {
        RestoredCheckpoint restored = CheckpointStorage.load(checkpoint);
        // At parallelism 1 the one subtask sees every former subtask's union entries.
        return restored.stateFor(uid, 0, 1).unionState().containsKey(InFlightRecords.STATE_NAME);
    }

    @Test
    void aSavepointUnderBackpressureStaysAlignedAndHoldsNoRecordsInFlight() throws Exception {
        slowNanos = TimeUnit.MICROSECONDS.toNanos(200);
        MeterRegistry registry = new SimpleMeterRegistry();
        JobClient client = new KeyedCountJob(checkpoints, output, ROWS).unaligned(true).meterRegistry(registry)
                .retained(20).afterCount(UnalignedCheckpointTest::slow).executeAsync("unaligned-savepoint");
        CheckpointLocation savepoint;
        CheckpointLocation checkpoint;
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> completedCheckpoints(client) >= 2
                    && inFlightStored(registry) > 0);
            long newest = client.checkpointHistory().entries().stream()
                    .filter(c -> c.completed() && c.kind() == CheckpointKind.CHECKPOINT)
                    .mapToLong(c -> c.checkpointId()).max().orElseThrow();
            checkpoint = client.jobDirectory().resolve("chk-" + newest);
            savepoint = client.triggerSavepoint(true).get(60, TimeUnit.SECONDS);
        } catch (Exception | AssertionError e) {
            client.cancel();
            throw e;
        }
        assertThat(client.result().get(30, TimeUnit.SECONDS).status()).isEqualTo(JobResult.Status.FINISHED);
        assertThat(holdsRecordsInFlight(checkpoint, "count")).as("a periodic checkpoint under backpressure").isTrue();
        assertThat(holdsRecordsInFlight(savepoint, "count")).as("the savepoint").isFalse();
        slowNanos = 0;

        JobResult restored = new KeyedCountJob(checkpoints, output, ROWS).parallelism(3)
                .restore(RestoreSetting.fromPath(savepoint)).execute("unaligned-savepoint");

        assertThat(restored.status()).isEqualTo(JobResult.Status.FINISHED);
        assertExactlyOnce(CommittedOutput.read(output));
    }

    @Test
    void unalignedCheckpointsNeedExactlyOnceAndARecordSerializerBetweenTasks() {
        assertThatThrownBy(() -> CheckpointConfig.defaults().withMode(CheckpointingMode.AT_LEAST_ONCE).withUnaligned(true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unaligned checkpoints need the exactly-once mode");

        var env = dev.onceflow.runtime.api.StreamEnvironment.create()
                .setCheckpointConfig(CheckpointConfig.defaults().withDirectory(checkpoints).withUnaligned(true));
        env.fromSource(dev.onceflow.connector.datagen.DatagenSource.builder().rows(10).keys(2).build(), "events")
                .uid("events")
                .keyBy(Event::key, dev.onceflow.spi.serialization.Serializers.STRING)
                .process(dev.onceflow.runtime.cli.CountEventsByKey::new).uid("count")
                .sinkTo(dev.onceflow.connector.filesystem.FileSystemSink.builder(output.toString()).build()).uid("files");

        assertThatThrownBy(env::plan).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("records in flight from 'events' to 'count'")
                .hasMessageContaining("recordSerializer(...)");
    }
}
