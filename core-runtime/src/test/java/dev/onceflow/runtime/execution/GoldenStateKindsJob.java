package dev.onceflow.runtime.execution;

import static org.awaitility.Awaitility.await;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.runtime.api.BroadcastStream;
import dev.onceflow.runtime.api.Collector;
import dev.onceflow.runtime.api.KeyedBroadcastProcessFunction;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.api.TimeDomain;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.state.AggregateFunction;
import dev.onceflow.runtime.state.AggregatingState;
import dev.onceflow.runtime.state.ListState;
import dev.onceflow.runtime.state.MapState;
import dev.onceflow.runtime.state.ReducingState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.Serializers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The job behind the golden savepoints in {@code src/test/resources/golden-state-kinds/}: one of
 * every kind of state the runtime checkpoints, so that a change to the encoding of any of them
 * breaks {@code GoldenSavepointTest}. {@link GoldenSavepointJob} covers the common case (keyed
 * values and source positions); this one adds:
 *
 * <ul>
 *   <li>operator list state and union list state ({@link CountPerSubtask}, uid {@code tagged});
 *   <li>keyed value, list, map, reducing and aggregating state, an event-time timer per key
 *       registered on the key's first record only, and broadcast state fed by a second source
 *       ({@link EveryKeyedKind}, uid {@code state-kinds}).
 * </ul>
 *
 * <p>Datagen ids {@code 0..ROWS-1} over {@link #KEYS} keys; {@link #BROADCAST_ROWS} broadcast
 * records counted per key in broadcast state. Every record goes to the sink with its key's running
 * count. Neither source has timestamps, so event time stays at its start until the end of input,
 * where each key's timer emits {@link #summary} of all its state: a stop-with-savepoint halfway
 * leaves every timer pending in the savepoint, and a key whose timer was not restored never
 * reports. {@link #main} writes a new golden folder; never change the constants.
 *
 * <pre>
 * java -cp "core-runtime/target/test-classes:core-runtime/target/classes:$(cat /tmp/cp.txt)" \
 *     dev.onceflow.runtime.execution.GoldenStateKindsJob core-runtime/src/test/resources/golden-state-kinds/&lt;version&gt;
 * </pre>
 * (the class path as for {@link GoldenSavepointJob}).
 */
public final class GoldenStateKindsJob {

    static final long ROWS = 2_000;
    static final int KEYS = 10;
    static final long BROADCAST_ROWS = 20;
    static final int PARALLELISM = 2;
    /** Event time of every key's timer: after every record, reached at the end of input only. */
    static final long END_OF_TIME = 1L << 40;
    static final String FINAL_PREFIX = "final-";

    static final StateDescriptor.Map<String, Long> RULES =
            StateDescriptor.map("broadcast-counts", Serializers.STRING, Serializers.LONG);

    /** Every event the sink of this JVM received, from any job. */
    static final Queue<Event> RECEIVED = GoldenSavepointJob.RECEIVED;
    static final Map<Integer, List<Long>> RESTORED_LIST = CountPerSubtask.RESTORED_LIST;
    static final Map<Integer, List<String>> RESTORED_UNION = CountPerSubtask.RESTORED_UNION;
    /** Subtask -> broadcast records processed in this JVM. */
    static final Map<Integer, AtomicLong> BROADCAST_SEEN = new ConcurrentHashMap<>();

    private GoldenStateKindsJob() {
    }

    static void reset() {
        RECEIVED.clear();
        RESTORED_LIST.clear();
        RESTORED_UNION.clear();
        BROADCAST_SEEN.clear();
    }

    static StreamEnvironment environment(Path checkpoints, RestoreSetting restore, int parallelism, long rowsPerSecond) {
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(parallelism)
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(Duration.ofMillis(100))
                        .withDirectory(checkpoints))
                .setRestore(restore);
        BroadcastStream<Event> rules = env.fromSource(DatagenSource.builder().rows(BROADCAST_ROWS).keys(KEYS).build(),
                "rules").uid("rules").broadcast(RULES);
        env.fromSource(DatagenSource.builder().rows(ROWS).keys(KEYS).rowsPerSecond(rowsPerSecond).build(), "events")
                .uid("events")
                .process(CountPerSubtask::new).uid("tagged")
                .keyBy(Event::key, Serializers.STRING)
                .connect(rules)
                .process(EveryKeyedKind::new).uid("state-kinds")
                .sinkTo(new GoldenSavepointJob.ReceivingSink()).uid("received");
        return env;
    }

    /**
     * What a key's timer emits: every one of its states, as a correct run holds them at the end of
     * input, given the ids of the key and the broadcast counts.
     */
    static String summary(long count, List<Long> ids, Map<String, Long> buckets, Long sum, String range,
            Map<String, Long> rules) {
        List<Long> sortedIds = new ArrayList<>(ids);
        sortedIds.sort(Comparator.naturalOrder());
        return "count=" + count + " ids=" + sortedIds + " buckets=" + new TreeMap<>(buckets) + " sum=" + sum
                + " range=" + range + " rules=" + new TreeMap<>(rules);
    }

    /** Writes {@code <target>/savepoint-<id>/} and {@code <target>/delivered.csv}. */
    public static void main(String[] args) throws Exception {
        Path target = GoldenSavepointJob.newGoldenFolder(args, "GoldenStateKindsJob", "golden-state-kinds");
        Path work = Files.createTempDirectory("onceflow-golden-");
        reset();
        JobClient client = environment(work, RestoreSetting.fresh(), PARALLELISM, 2_000).executeAsync("golden-kinds");
        await().atMost(Duration.ofSeconds(30)).until(() -> client.progress().recordsRead() >= ROWS / 3
                && BROADCAST_SEEN.size() == PARALLELISM
                && BROADCAST_SEEN.values().stream().allMatch(seen -> seen.get() == BROADCAST_ROWS));
        // Neither source has timestamps: no timer can have fired before the savepoint.
        GoldenSavepointJob.keepSavepoint(client, ROWS, target);
        if (RECEIVED.stream().anyMatch(event -> event.id().startsWith(FINAL_PREFIX))) {
            throw new IllegalStateException("a timer fired before the savepoint: delete " + target);
        }
    }

    /** Keeps every record's effect in each kind of keyed state and counts broadcast records per key. */
    static final class EveryKeyedKind extends KeyedBroadcastProcessFunction<String, Event, Event, Event> {

        private ValueState<Long> count;
        private ListState<Long> ids;
        private MapState<String, Long> buckets;
        private ReducingState<Long> sum;
        private AggregatingState<Long, String> range;
        private int subtask;

        @Override
        public void open(OpenContext context) {
            subtask = context.subtaskIndex();
            count = context.getState(StateDescriptor.value("count", Serializers.LONG));
            ids = context.getState(StateDescriptor.list("ids", Serializers.LONG));
            buckets = context.getState(StateDescriptor.map("buckets", Serializers.STRING, Serializers.LONG));
            sum = context.getState(StateDescriptor.reducing("sum", Long::sum, Serializers.LONG));
            range = context.getState(StateDescriptor.aggregating("range", new Range(), Serializers.STRING));
        }

        @Override
        public void processElement(Event event, ReadOnlyContext<String> context, Collector<Event> out) {
            long id = Long.parseLong(event.id());
            Long previous = count.value();
            if (previous == null) {
                context.timerService().registerEventTimeTimer(END_OF_TIME);
            }
            long next = previous == null ? 1 : previous + 1;
            count.update(next);
            ids.add(id);
            String bucket = "mod3-" + id % 3;
            Long inBucket = buckets.get(bucket);
            buckets.put(bucket, inBucket == null ? 1 : inBucket + 1);
            sum.add(id);
            range.add(id);
            out.collect(event.withCount(next));
        }

        @Override
        public void processBroadcastElement(Event rule, Context context, Collector<Event> out) {
            Map<String, Long> counts = context.getBroadcastState(RULES).entries();
            Long seen = counts.get(rule.key());
            context.getBroadcastState(RULES).put(rule.key(), seen == null ? 1 : seen + 1);
            BROADCAST_SEEN.computeIfAbsent(subtask, s -> new AtomicLong()).incrementAndGet();
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext<String> context, Collector<Event> out) {
            if (context.timeDomain() != TimeDomain.EVENT_TIME || timestamp != END_OF_TIME) {
                throw new IllegalStateException("unexpected timer " + context.timeDomain() + " " + timestamp);
            }
            long total = count.value();
            String text = summary(total, ids.get(), buckets.entries(), sum.get(), range.get(),
                    context.getBroadcastState(RULES).entries());
            out.collect(new Event(FINAL_PREFIX + context.currentKey(), context.currentKey(), text, total));
        }
    }

    /** The lowest and highest id of a key, as {@code "min..max"}; the accumulator is that text. */
    static final class Range implements AggregateFunction<Long, String, String> {

        @Override
        public String createAccumulator() {
            return "";
        }

        @Override
        public String add(Long value, String accumulator) {
            if (accumulator.isEmpty()) {
                return value + ".." + value;
            }
            int dots = accumulator.indexOf("..");
            long min = Math.min(Long.parseLong(accumulator.substring(0, dots)), value);
            long max = Math.max(Long.parseLong(accumulator.substring(dots + 2)), value);
            return min + ".." + max;
        }

        @Override
        public String getResult(String accumulator) {
            return accumulator;
        }
    }
}
