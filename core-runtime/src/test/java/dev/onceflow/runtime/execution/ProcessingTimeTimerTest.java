package dev.onceflow.runtime.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.filesystem.FileSystemSink;
import dev.onceflow.runtime.api.Collector;
import dev.onceflow.runtime.api.KeyedProcessFunction;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.api.TimeDomain;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.config.RestartStrategy;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.Serializers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Processing-time timers across a crash: each key registers one timer, 2 s after its first
 * record, and remembers in state that it did. The job fails once right after its first completed
 * checkpoint, long before any timer is due. If restored timers were lost no key would ever fire
 * again (its state says it registered one); if they fired twice a key would appear twice.
 */
@Timeout(60)
class ProcessingTimeTimerTest {

    private static final int KEYS = 10;
    private static final long DELAY_MILLIS = 2_000;
    private static final AtomicBoolean FAILED = new AtomicBoolean();
    private static final AtomicInteger FIRED_BEFORE_FAILURE = new AtomicInteger();

    @TempDir
    Path dir;

    @Test
    void aTimerRegisteredBeforeACrashFiresOnceAfterRecovery() throws Exception {
        FAILED.set(false);
        FIRED_BEFORE_FAILURE.set(0);
        Path checkpoints = dir.resolve("checkpoints");
        Path output = dir.resolve("output");
        long rows = 9_000;
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(2)
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(Duration.ofMillis(50))
                        .withDirectory(checkpoints))
                .setRestartStrategy(RestartStrategy.fixedDelay(3, Duration.ofMillis(10)));
        env.fromSource(DatagenSource.builder().rows(rows).keys(KEYS).rowsPerSecond(2_000).build(), "events")
                .uid("events")
                .map(event -> failOnceAfterACheckpoint(event, checkpoints)).uid("map")
                .keyBy(Event::key, Serializers.STRING)
                .process(FireOncePerKey::new).uid("timers")
                .sinkTo(FileSystemSink.builder(output.toString()).build()).uid("files");

        JobResult result = env.execute("processing-time");

        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        assertThat(result.restarts()).isEqualTo(1);
        assertThat(FIRED_BEFORE_FAILURE).as("no timer was due before the crash").hasValue(0);
        CommittedOutput out = CommittedOutput.read(output);
        List<String> fired = out.events.stream().map(Event::id).sorted().toList();
        assertThat(fired).as("each key's timer fired exactly once")
                .containsExactlyElementsOf(IntStream.range(0, KEYS).mapToObj(k -> "key-" + k).sorted().toList());
        assertThat(out.events).allSatisfy(event -> assertThat(event.count()).isPositive());
    }

    private static Event failOnceAfterACheckpoint(Event event, Path checkpoints) throws IOException {
        if (!FAILED.get() && hasCompletedCheckpoint(checkpoints) && FAILED.compareAndSet(false, true)) {
            throw new IllegalStateException("injected failure at id " + event.id());
        }
        return event;
    }

    /**
     * Whether a checkpoint of the job completed: a {@code chk-<id>} directory with its
     * {@code _metadata}. Only names and one existence check: temporary files come and go while
     * the checkpoint is written, so walking the tree with file attributes would race with them.
     */
    private static boolean hasCompletedCheckpoint(Path checkpoints) throws IOException {
        Path job = checkpoints.resolve("processing-time");
        if (!Files.isDirectory(job)) {
            return false;
        }
        try (Stream<Path> dirs = Files.list(job)) {
            return dirs.anyMatch(d -> d.getFileName().toString().startsWith("chk-") && Files.exists(d.resolve("_metadata")));
        }
    }

    /** Registers one processing-time timer per key, at its first record; the timer emits the key once. */
    static final class FireOncePerKey extends KeyedProcessFunction<String, Event, Event> {

        private ValueState<Long> deadline;
        private ValueState<Long> seen;

        @Override
        public void open(KeyedContext context) {
            deadline = context.getState(StateDescriptor.value("deadline", Serializers.LONG));
            seen = context.getState(StateDescriptor.value("seen", Serializers.LONG));
        }

        @Override
        public void processElement(Event event, Context<String> context, Collector<Event> out) {
            Long count = seen.value();
            seen.update(count == null ? 1 : count + 1);
            if (deadline.value() == null) {
                long at = context.timerService().currentProcessingTime() + DELAY_MILLIS;
                deadline.update(at);
                context.timerService().registerProcessingTimeTimer(at);
            }
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext<String> context, Collector<Event> out) {
            assertThat(context.timeDomain()).isEqualTo(TimeDomain.PROCESSING_TIME);
            assertThat(timestamp).isEqualTo(deadline.value());
            if (!FAILED.get()) {
                FIRED_BEFORE_FAILURE.incrementAndGet();
            }
            out.collect(new Event(context.currentKey(), context.currentKey(), "fired", seen.value()));
        }
    }
}
