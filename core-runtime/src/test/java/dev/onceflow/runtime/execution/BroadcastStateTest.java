package dev.onceflow.runtime.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.filesystem.FileSystemSink;
import dev.onceflow.runtime.cli.CountEventsByKey;
import dev.onceflow.runtime.api.BroadcastProcessFunction;
import dev.onceflow.runtime.api.BroadcastStream;
import dev.onceflow.runtime.api.Collector;
import dev.onceflow.runtime.api.DataStream;
import dev.onceflow.runtime.api.KeyedBroadcastProcessFunction;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.config.RestartStrategy;
import dev.onceflow.runtime.state.BroadcastState;
import dev.onceflow.runtime.state.ReadOnlyBroadcastState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.Serializers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Broadcast state, fed by a second source through {@code connect}, in a broadcast step and in a
 * keyed broadcast step: every subtask counts the broadcast records per key. Restored at another parallelism, every subtask gets the one same map
 * (unlike list state, which is split, and union list state, which hands every subtask all former
 * subtasks' entries: {@link OperatorStateRescaleTest}); after a crash in the middle of the broadcast
 * input, the counts hold every broadcast record exactly once, while the other input stays
 * exactly-once through the keyed count behind the two-input step.
 */
@Timeout(90)
class BroadcastStateTest {

    private static final StateDescriptor.Map<String, Long> COUNTS =
            StateDescriptor.map("broadcast-counts", Serializers.STRING, Serializers.LONG);
    private static final int KEYS = KeyedCountJob.KEYS;

    /** What each subtask found in its broadcast state when it opened after a restore. */
    private static final Map<Integer, Map<String, Long>> RESTORED = new ConcurrentHashMap<>();
    /** What each subtask's broadcast state held when it closed (the last attempt's close is the last put). */
    private static final Map<Integer, Map<String, Long>> CLOSED = new ConcurrentHashMap<>();
    /** Broadcast records each subtask processed in this JVM, across attempts. */
    private static final Map<Integer, AtomicLong> BROADCAST_SEEN = new ConcurrentHashMap<>();
    private static final AtomicBoolean FAILED_ONCE = new AtomicBoolean();
    private static volatile String failAtBroadcastId;

    @TempDir
    Path dir;

    @BeforeEach
    void setUp() {
        RESTORED.clear();
        CLOSED.clear();
        BROADCAST_SEEN.clear();
        FAILED_ONCE.set(false);
        failAtBroadcastId = null;
    }

    /** Per key, the number of datagen ids {@code 0..rows-1} of that key, computed independently of the job. */
    private static Map<String, Long> expectedCounts(long rows) {
        Map<String, Long> counts = new TreeMap<>();
        for (long id = 0; id < rows; id++) {
            counts.merge("key-" + (id % KEYS), 1L, Long::sum);
        }
        return counts;
    }

    /**
     * Datagen events and broadcast datagen updates, counted per key: with {@code keyed}, by one
     * keyed broadcast step ({@code count}); else by a broadcast step ({@code enrich}) and a keyed
     * count behind it ({@code count}). Either way the broadcast records are counted per key in
     * broadcast state and the events' running counts per key are written to the sink.
     */
    private StreamEnvironment job(boolean keyed, int parallelism, long rows, long rowsPerSecond, long broadcastRows,
            long broadcastRowsPerSecond, Path output, RestoreSetting restore, RestartStrategy restart) {
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(parallelism)
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(Duration.ofMillis(50))
                        .withDirectory(dir.resolve("checkpoints")))
                .setRestartStrategy(restart)
                .setRestore(restore);
        BroadcastStream<Event> updates = env.fromSource(DatagenSource.builder().rows(broadcastRows).keys(KEYS)
                        .rowsPerSecond(broadcastRowsPerSecond).build(), "updates")
                .uid("updates")
                .broadcast(COUNTS);
        DataStream<Event> events = env.fromSource(DatagenSource.builder().rows(rows).keys(KEYS)
                .rowsPerSecond(rowsPerSecond).build(), "events").uid("events");
        DataStream<Event> counted = keyed
                ? events.keyBy(Event::key, Serializers.STRING).connect(updates).process(CountWithBroadcast::new)
                        .uid("count")
                : events.connect(updates).process(CountBroadcastPerKey::new).uid("enrich")
                        .keyBy(Event::key, Serializers.STRING).process(CountEventsByKey::new).uid("count");
        counted.sinkTo(FileSystemSink.builder(output.toString()).build()).uid("files");
        return env;
    }

    @ParameterizedTest(name = "keyed: {0}")
    @ValueSource(booleans = {false, true})
    void everySubtaskRestoresTheSameBroadcastStateAtAnyParallelism(boolean keyed) throws Exception {
        long rows = 20_000;
        long broadcastRows = 200;
        JobClient client = job(keyed, 2, rows, 2_000, broadcastRows, 0, dir.resolve("first"), RestoreSetting.fresh(),
                RestartStrategy.none()).executeAsync("broadcast-rescale");
        await().atMost(Duration.ofSeconds(30)).until(() -> BROADCAST_SEEN.size() == 2
                && BROADCAST_SEEN.values().stream().allMatch(seen -> seen.get() == broadcastRows));
        CheckpointLocation savepoint = client.triggerSavepoint(true).get(30, TimeUnit.SECONDS);
        JobResult first = client.result().get(30, TimeUnit.SECONDS);
        assertThat(first.recordsRead()).as("the main input was stopped part way").isLessThan(rows + broadcastRows);
        assertThat(RESTORED).as("the first run started fresh").isEmpty();
        Map<String, Long> expected = expectedCounts(broadcastRows);
        assertThat(new TreeMap<>(CLOSED.get(0))).as("the first run counted every broadcast record once")
                .isEqualTo(expected);

        JobResult scaledUp = job(keyed, 3, rows, 0, broadcastRows, 0, dir.resolve("second"),
                RestoreSetting.fromPath(savepoint), RestartStrategy.none()).execute("broadcast-rescale");

        assertThat(scaledUp.status()).isEqualTo(JobResult.Status.FINISHED);
        assertThat(RESTORED.keySet()).containsExactlyInAnyOrder(0, 1, 2);
        assertThat(RESTORED.values()).as("at parallelism 3 every subtask gets the whole map, once")
                .allSatisfy(map -> assertThat(new TreeMap<>(map)).isEqualTo(expected));
        assertThat(CLOSED.values()).as("the broadcast source was not replayed into the restored counts")
                .allSatisfy(map -> assertThat(new TreeMap<>(map)).isEqualTo(expected));
        CommittedOutput.read(dir.resolve("first"), dir.resolve("second")).assertExactlyOnce(rows);

        RESTORED.clear();
        // The scaled-up run completed checkpoints after the savepoint (EO-5); this run writes its
        // own directory, so the duplicates the flag accepts stay out of the output checked here.
        JobResult scaledDown = job(keyed, 1, rows, 0, broadcastRows, 0, dir.resolve("third"),
                RestoreSetting.fromPath(savepoint).acceptingDuplicates(), RestartStrategy.none())
                .execute("broadcast-rescale");

        assertThat(scaledDown.status()).isEqualTo(JobResult.Status.FINISHED);
        assertThat(RESTORED.keySet()).containsExactly(0);
        assertThat(new TreeMap<>(RESTORED.get(0))).as("at parallelism 1 as well").isEqualTo(expected);
        CommittedOutput.read(dir.resolve("first"), dir.resolve("third")).assertExactlyOnce(rows);
    }

    @ParameterizedTest(name = "keyed: {0}")
    @ValueSource(booleans = {false, true})
    void aCrashInTheMiddleOfTheBroadcastInputCountsEveryBroadcastRecordOnce(boolean keyed) throws Exception {
        long rows = 12_000;
        long broadcastRows = 600;
        // Fails at a broadcast record seen after a checkpoint, so the restored state is partial and
        // the broadcast source replays what came after it.
        failAtBroadcastId = "300";
        JobResult result = job(keyed, 2, rows, 6_000, broadcastRows, 300, dir.resolve("out"), RestoreSetting.fresh(),
                RestartStrategy.fixedDelay(3, Duration.ofMillis(10))).execute("broadcast-failover");

        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        assertThat(FAILED_ONCE).as("the failure was injected").isTrue();
        assertThat(result.restarts()).isEqualTo(1);
        Map<String, Long> expected = expectedCounts(broadcastRows);
        assertThat(CLOSED.keySet()).containsExactlyInAnyOrder(0, 1);
        assertThat(CLOSED.values()).as("every broadcast record counted once on every subtask after the restart")
                .allSatisfy(map -> assertThat(new TreeMap<>(map)).isEqualTo(expected));
        assertThat(RESTORED.keySet()).as("the restart restored both subtasks").containsExactlyInAnyOrder(0, 1);
        // Part way: the broadcast source runs in two subtasks, and a checkpoint holds a prefix of
        // each split, so the restored count is below the whole input, not below the failing id.
        assertThat(RESTORED.values()).as("from a checkpoint taken part way through the broadcast input, the same on both")
                .allSatisfy(map -> assertThat(map.values().stream().mapToLong(Long::longValue).sum())
                        .isBetween(1L, broadcastRows - 1))
                .allSatisfy(map -> assertThat(map).isEqualTo(RESTORED.get(0)));
        CommittedOutput.read(dir.resolve("out")).assertExactlyOnce(rows);
    }

    /** A job of 10 events and 1 broadcast record through {@code function}. */
    private StreamEnvironment smallJob(java.util.function.Supplier<BroadcastProcessFunction<Event, Event, Event>> function) {
        StreamEnvironment env = StreamEnvironment.create()
                .setCheckpointConfig(CheckpointConfig.defaults().withDirectory(dir.resolve("checkpoints")));
        BroadcastStream<Event> updates = env.fromSource(DatagenSource.builder().rows(1).build(), "updates")
                .uid("updates").broadcast(COUNTS);
        env.fromSource(DatagenSource.builder().rows(10).build(), "events").uid("events")
                .connect(updates)
                .process(function).uid("enrich")
                .sinkTo(FileSystemSink.builder(dir.resolve("out").toString()).build()).uid("files");
        return env;
    }

    /** Applies {@code onRecord} to the context of every record of the non-broadcast input. */
    private static BroadcastProcessFunction<Event, Event, Event> onEachRecord(
            java.util.function.Consumer<BroadcastProcessFunction.ReadOnlyContext> onRecord) {
        return new BroadcastProcessFunction<>() {
            @Override
            public void processElement(Event value, ReadOnlyContext context, Collector<Event> out) {
                onRecord.accept(context);
            }

            @Override
            public void processBroadcastElement(Event value, Context context, Collector<Event> out) {
            }
        };
    }

    @Test
    @SuppressWarnings("unchecked")
    void theRecordsOfTheOtherInputCannotChangeTheBroadcastState() {
        StreamEnvironment env = smallJob(() -> onEachRecord(
                context -> ((BroadcastState<String, Long>) context.getBroadcastState(COUNTS)).put("x", 1L)));

        assertThatThrownBy(() -> env.execute("read-only"))
                .isInstanceOf(JobExecutionException.class)
                .hasStackTraceContaining("ClassCastException");
    }

    @Test
    void anUndeclaredBroadcastStateIsRefusedNamingTheDeclaredOnes() {
        StateDescriptor.Map<String, String> other = StateDescriptor.map("rules", Serializers.STRING, Serializers.STRING);
        StreamEnvironment env = smallJob(() -> onEachRecord(context -> context.getBroadcastState(other)));

        assertThatThrownBy(() -> env.execute("undeclared"))
                .isInstanceOf(JobExecutionException.class)
                .hasMessageContaining("broadcast state 'rules' of 'enrich' was not declared; declared: [broadcast-counts]");
    }

    /** Counts a broadcast record in {@code counts}, failing once at {@link #failAtBroadcastId}. */
    private static void countBroadcast(Event value, BroadcastState<String, Long> counts, int subtask) {
        if (value.id().equals(failAtBroadcastId) && FAILED_ONCE.compareAndSet(false, true)) {
            throw new IllegalStateException("injected failure at broadcast id " + value.id());
        }
        Long count = counts.get(value.key());
        counts.put(value.key(), count == null ? 1 : count + 1);
        BROADCAST_SEEN.computeIfAbsent(subtask, s -> new AtomicLong()).incrementAndGet();
    }

    /**
     * Counts broadcast records per key in broadcast state and passes the other input's events on.
     * Counting (not overwriting) makes a replayed or lost broadcast record show as a wrong count.
     */
    static final class CountBroadcastPerKey extends BroadcastProcessFunction<Event, Event, Event> {

        private int subtask;
        private ReadOnlyBroadcastState<String, Long> view;

        @Override
        public void open(OpenContext context) {
            subtask = context.subtaskIndex();
            view = context.getBroadcastState(COUNTS);
            if (context.isRestored()) {
                RESTORED.put(subtask, new HashMap<>(view.entries()));
            }
        }

        @Override
        public void processElement(Event value, ReadOnlyContext context, Collector<Event> out) {
            out.collect(value);
        }

        @Override
        public void processBroadcastElement(Event value, Context context, Collector<Event> out) {
            countBroadcast(value, context.getBroadcastState(COUNTS), subtask);
        }

        @Override
        public void close() {
            CLOSED.put(subtask, new HashMap<>(view.entries()));
        }
    }

    /**
     * Both in one keyed broadcast step: the running count of each event's key in keyed state, and
     * the broadcast records per key in broadcast state.
     */
    static final class CountWithBroadcast extends KeyedBroadcastProcessFunction<String, Event, Event, Event> {

        private int subtask;
        private ValueState<Long> count;
        private ReadOnlyBroadcastState<String, Long> view;

        @Override
        public void open(OpenContext context) {
            subtask = context.subtaskIndex();
            count = context.getState(StateDescriptor.value("count", Serializers.LONG));
            view = context.getBroadcastState(COUNTS);
            if (context.isRestored()) {
                RESTORED.put(subtask, new HashMap<>(view.entries()));
            }
        }

        @Override
        public void processElement(Event value, ReadOnlyContext<String> context, Collector<Event> out) {
            assertThat(context.currentKey()).isEqualTo(value.key());
            Long previous = count.value();
            long next = previous == null ? 1 : previous + 1;
            count.update(next);
            out.collect(value.withCount(next));
        }

        @Override
        public void processBroadcastElement(Event value, Context context, Collector<Event> out) {
            countBroadcast(value, context.getBroadcastState(COUNTS), subtask);
        }

        @Override
        public void close() {
            CLOSED.put(subtask, new HashMap<>(view.entries()));
        }
    }
}
