package dev.onceflow.runtime.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.filesystem.FileSystemSink;
import dev.onceflow.runtime.api.Collector;
import dev.onceflow.runtime.api.KeyedProcessFunction;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Controlling a running job: cancel ends it promptly and settles every savepoint request. */
@Timeout(60)
class JobClientTest {

    private static volatile CountDownLatch blocked;
    private static volatile CountDownLatch serializing;
    private static volatile boolean slowSnapshots;
    private static final AtomicInteger SLOW_CALLS = new AtomicInteger();
    private static final Set<Thread> SNAPSHOT_THREADS = ConcurrentHashMap.newKeySet();

    @TempDir
    Path dir;

    @BeforeEach
    void setUp() {
        blocked = new CountDownLatch(1);
        serializing = new CountDownLatch(1);
        slowSnapshots = false;
        SLOW_CALLS.set(0);
        SNAPSHOT_THREADS.clear();
    }

    /** Parks the source task at {@code id} until the task is interrupted, so no checkpoint can complete. */
    private static Event blockAt(Event event, String id) throws InterruptedException {
        if (event.id().equals(id)) {
            blocked.countDown();
            new CountDownLatch(1).await();
        }
        return event;
    }

    /**
     * With a checkpoint in flight that can never complete (its source is stuck), cancelling must
     * still end the job at once and fail the pending savepoint, not wait for the checkpoint
     * timeout (10 minutes by default).
     */
    @Test
    void cancelEndsTheJobPromptlyEvenWithASavepointInFlight() throws Exception {
        JobClient client = new KeyedCountJob(dir.resolve("checkpoints"), dir.resolve("output"), 1_000_000)
                .parallelism(1).rowsPerSecond(20_000).map(event -> blockAt(event, "200")).executeAsync("cancelled");
        assertThat(blocked.await(20, TimeUnit.SECONDS)).as("the source reached the blocking record").isTrue();
        CompletableFuture<CheckpointLocation> savepoint = client.triggerSavepoint(false);

        client.cancel();

        JobResult result = client.result().get(5, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobResult.Status.CANCELLED);
        assertThat(savepoint).failsWithin(Duration.ofSeconds(5));
    }

    @Test
    void cancelOfARunningJobReportsCancelled() throws Exception {
        JobClient client = new KeyedCountJob(dir.resolve("checkpoints"), dir.resolve("output"), 1_000_000)
                .parallelism(1).rowsPerSecond(5_000).executeAsync("cancel-running");
        await().atMost(Duration.ofSeconds(20)).until(() -> client.progress().recordsRead() >= 100);

        client.cancel();

        JobResult result = client.result().get(30, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobResult.Status.CANCELLED);
        assertThat(result.restarts()).isZero();
        assertThat(client.triggerSavepoint(false)).failsWithin(Duration.ofSeconds(1));
    }

    /**
     * A cancelled job's snapshot thread must not outlive it: it would go on writing into the
     * checkpoint directory, and sharing the cores and the heap, after the caller was told the job
     * ended. The snapshot serializes 2,000 values at 2 ms each, deaf to interrupts; cancelled
     * right after it began, it stops at the next key group, and the job ends after it stopped.
     */
    @Test
    void cancelStopsASnapshotInProgressBeforeTheJobEnds() throws Exception {
        int keys = 2_000;
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(1)
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(Duration.ofMillis(100))
                        .withDirectory(dir.resolve("checkpoints")));
        env.fromSource(DatagenSource.builder().keys(keys).rowsPerSecond(20_000).build(), "events").uid("events")
                .keyBy(Event::key, Serializers.STRING)
                .process(LastIdPerKey::new).uid("last")
                .sinkTo(FileSystemSink.builder(dir.resolve("output").toString()).build()).uid("files");
        JobClient client = env.executeAsync("stopped-snapshot");
        await().atMost(Duration.ofSeconds(20)).until(() -> client.progress().recordsRead() >= 2L * keys);
        slowSnapshots = true;
        assertThat(serializing.await(20, TimeUnit.SECONDS)).as("a snapshot began serializing slowly").isTrue();

        client.cancel();

        JobResult result = client.result().get(10, TimeUnit.SECONDS);
        int callsWhenEnded = SLOW_CALLS.get();
        assertThat(result.status()).isEqualTo(JobResult.Status.CANCELLED);
        for (Thread thread : SNAPSHOT_THREADS) {
            thread.join(10_000); // a stopped pool thread may still be leaving run()
        }
        assertThat(SNAPSHOT_THREADS).noneMatch(Thread::isAlive);
        assertThat(SLOW_CALLS.get()).as("values serialized after the job ended").isEqualTo(callsWhenEnded);
        assertThat(callsWhenEnded).as("values serialized: the snapshot stopped early, not at its end")
                .isLessThan(keys / 2);
    }

    /** Keeps the last id per key, in a state whose serializer becomes slow on demand. */
    static final class LastIdPerKey extends KeyedProcessFunction<String, Event, Event> {
        private ValueState<String> last;

        @Override
        public void open(KeyedContext context) {
            last = context.getState(StateDescriptor.value("last-id", new SlowSerializer()));
        }

        @Override
        public void processElement(Event event, Context<String> context, Collector<Event> out) {
            last.update(event.id());
        }
    }

    /** {@link Serializers#STRING}, taking 2 ms per value once {@link #slowSnapshots} is set, whatever interrupts say. */
    static final class SlowSerializer implements SimpleVersionedSerializer<String> {
        @Override
        public int version() {
            return Serializers.STRING.version();
        }

        @Override
        public byte[] serialize(String value) throws IOException {
            if (slowSnapshots) {
                SNAPSHOT_THREADS.add(Thread.currentThread());
                SLOW_CALLS.incrementAndGet();
                serializing.countDown();
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2);
                for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
                    LockSupport.parkNanos(end - now); // returns at once when interrupted: keeps waiting
                }
            }
            return Serializers.STRING.serialize(value);
        }

        @Override
        public String deserialize(int version, byte[] serialized) throws IOException {
            return Serializers.STRING.deserialize(version, serialized);
        }
    }
}
