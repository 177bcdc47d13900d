package dev.onceflow.runtime.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.config.RestartStrategy;
import dev.onceflow.runtime.execution.JobResult;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.AtLeastOnceSink;
import dev.onceflow.spi.sink.AtLeastOnceWriter;
import dev.onceflow.spi.sink.BestEffortSink;
import dev.onceflow.spi.sink.BestEffortWriter;
import dev.onceflow.spi.sink.Sink;
import dev.onceflow.spi.sink.SinkContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtime drives an {@link AtLeastOnceSink} by ALO-1: flushed at every barrier, so the records
 * a completed checkpoint covers are durable, and a failure (which throws away whatever the writer
 * still buffers, as a crash would) followed by a restore loses nothing; replayed records may appear
 * twice. A {@link BestEffortSink} is never flushed at a barrier (BE-1).
 */
@Timeout(60)
class WriteThroughSinkOperatorTest {

    private static final long ROWS = 4_000;

    /** What writers made durable, in order: the external system. */
    private static final Queue<String> DURABLE = new ConcurrentLinkedQueue<>();
    private static final AtomicInteger FLUSHES = new AtomicInteger();
    private static final AtomicBoolean FAILED_ONCE = new AtomicBoolean();

    @TempDir
    Path dir;

    @BeforeEach
    void setUp() {
        DURABLE.clear();
        FLUSHES.set(0);
        FAILED_ONCE.set(false);
    }

    @Test
    void atLeastOnceSinkLosesNothingAcrossAFailureAfterACheckpoint() throws Exception {
        JobResult result = run(new BufferingAtLeastOnceSink(), true);

        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        assertThat(result.restarts()).as("restarts after the injected failure").isEqualTo(1);
        Map<String, Integer> seen = counts();
        List<String> lost = LongStream.range(0, ROWS).mapToObj(Long::toString).filter(id -> !seen.containsKey(id))
                .toList();
        assertThat(lost).as("ids lost (ALO-1: what a completed checkpoint covers was flushed at its barrier)")
                .isEmpty();
        assertThat(seen.keySet()).as("ids written that were never input").hasSize((int) ROWS);
        // Duplicates are allowed (ALO-2): counted, not judged.
        long duplicated = seen.values().stream().filter(n -> n > 1).count();
        System.out.printf("at-least-once sink: %d ids, %d duplicated, %d flushes%n", seen.size(), duplicated,
                FLUSHES.get());
    }

    @Test
    void atLeastOnceSinkIsFlushedAtEveryBarrierNotOnlyAtTheEnd() throws Exception {
        JobResult result = run(new BufferingAtLeastOnceSink(), false);

        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        long checkpoints = lastCheckpointId(result);
        assertThat(checkpoints).as("last checkpoint").isGreaterThan(1);
        // Each subtask: one flush per barrier and one at end of input.
        assertThat(FLUSHES.get()).as("flushes of 2 subtasks").isGreaterThanOrEqualTo((int) (2 * checkpoints));
        assertThat(counts()).as("every id exactly once without failures").hasSize((int) ROWS)
                .allSatisfy((id, n) -> assertThat(n).as("writes of id %s", id).isEqualTo(1));
    }

    @Test
    void bestEffortSinkDeliversEverythingWhenTheJobEndsWithoutACrash() throws Exception {
        JobResult result = run(new BufferingBestEffortSink(), false);

        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        assertThat(lastCheckpointId(result)).as("last checkpoint").isGreaterThan(1);
        assertThat(counts()).as("ids delivered by close() at the end").hasSize((int) ROWS);
    }

    private JobResult run(Sink<Event> sink, boolean failOnce) throws Exception {
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(2)
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(Duration.ofMillis(50))
                        .withDirectory(dir.resolve("checkpoints")))
                .setRestartStrategy(RestartStrategy.fixedDelay(3, Duration.ofMillis(10)));
        env.fromSource(DatagenSource.builder().rows(ROWS).keys(4).rowsPerSecond(8_000).build(), "events")
                .uid("events")
                .map(event -> failOnce ? failOnceAfterAFlush(event) : event).uid("map")
                .sinkTo(sink).uid("sink");
        return env.execute("write-through");
    }

    /** Fails once, after something was flushed, so the failed attempt has made records durable. */
    private static Event failOnceAfterAFlush(Event event) {
        if (Long.parseLong(event.id()) % 100 == 0 && FLUSHES.get() > 2 && FAILED_ONCE.compareAndSet(false, true)) {
            throw new IllegalStateException("injected failure at id " + event.id());
        }
        return event;
    }

    private static long lastCheckpointId(JobResult result) {
        return Long.parseLong(result.lastCheckpoint().name().replaceAll("\\D", ""));
    }

    private static Map<String, Integer> counts() {
        Map<String, Integer> counts = new HashMap<>();
        DURABLE.forEach(id -> counts.merge(id, 1, Integer::sum));
        return counts;
    }

    /** Buffers records; only flush() makes them durable, and close() drops what is still buffered, like a crash. */
    static final class BufferingAtLeastOnceSink implements AtLeastOnceSink<Event> {
        @Override
        public AtLeastOnceWriter<Event> createWriter(SinkContext context) {
            List<String> buffer = new ArrayList<>();
            return new AtLeastOnceWriter<>() {
                @Override
                public void write(Event record) {
                    buffer.add(record.id());
                }

                @Override
                public void flush() {
                    DURABLE.addAll(buffer);
                    buffer.clear();
                    FLUSHES.incrementAndGet();
                }

                @Override
                public void close() {
                    buffer.clear();
                }
            };
        }
    }

    /** Buffers records and sends them all in close(); counts any send before that. */
    static final class BufferingBestEffortSink implements BestEffortSink<Event> {
        @Override
        public BestEffortWriter<Event> createWriter(SinkContext context) {
            List<String> buffer = new ArrayList<>();
            return new BestEffortWriter<>() {
                @Override
                public void write(Event record) {
                    buffer.add(record.id());
                }

                @Override
                public void close() {
                    DURABLE.addAll(buffer);
                    buffer.clear();
                }
            };
        }
    }
}
