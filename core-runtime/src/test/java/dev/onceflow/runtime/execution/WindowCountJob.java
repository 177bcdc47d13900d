package dev.onceflow.runtime.execution;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.filesystem.FileSystemSink;
import dev.onceflow.runtime.api.Collector;
import dev.onceflow.runtime.api.KeyedProcessFunction;
import dev.onceflow.runtime.api.MapFunction;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.api.WatermarkStrategy;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.config.RestartStrategy;
import dev.onceflow.runtime.state.MapState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.Serializers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongUnaryOperator;

/**
 * An event-time job over real connectors: datagen ids {@code 0..rows-1} with a timestamp computed
 * from the id -> keyBy(key) -> a count per key and tumbling window of {@link #WINDOW} ms, emitted
 * by an event-time timer when the watermark passes the window's end -> filesystem part files.
 * {@code rows <= 0} makes the source unbounded. Each output row has the id {@code <key>@<window start>} and the window's count, so the committed
 * output of a correct run is exactly {@link #expected}.
 */
final class WindowCountJob {

    static final int KEYS = 10;
    static final long WINDOW = 100;
    static final Duration INTERVAL = Duration.ofMillis(50);

    /** Every id's timestamp is its value: each reader's records come in timestamp order. */
    static final LongUnaryOperator IN_ORDER = id -> id;

    /**
     * Odd ids (the splits of reader 1 of 2) carry half their value: that reader's event time runs
     * at half the speed of the other's, so a window may only close when the slower input passed it.
     */
    static final LongUnaryOperator ODD_IDS_LAG = id -> id % 2 == 0 ? id : id / 2;

    private final Path checkpoints;
    private final Path output;
    private final long rows;
    private final LongUnaryOperator timestampOfId;
    private int parallelism = 2;
    private long rowsPerSecond;
    private MapFunction<Event, Event> map = event -> event;
    private RestartStrategy restart = RestartStrategy.none();
    private RestoreSetting restore = RestoreSetting.fresh();
    private int splits = 4;
    private Duration idleness = Duration.ZERO;

    WindowCountJob(Path checkpoints, Path output, long rows, LongUnaryOperator timestampOfId) {
        this.checkpoints = checkpoints;
        this.output = output;
        this.rows = rows;
        this.timestampOfId = timestampOfId;
    }

    WindowCountJob parallelism(int value) {
        parallelism = value;
        return this;
    }

    WindowCountJob rowsPerSecond(long value) {
        rowsPerSecond = value;
        return this;
    }

    WindowCountJob map(MapFunction<Event, Event> value) {
        map = value;
        return this;
    }

    WindowCountJob restart(RestartStrategy value) {
        restart = value;
        return this;
    }

    WindowCountJob splits(int value) {
        splits = value;
        return this;
    }

    WindowCountJob idleness(Duration value) {
        idleness = value;
        return this;
    }

    WindowCountJob restore(RestoreSetting value) {
        restore = value;
        return this;
    }

    /** Output row id -> count, as a correct run commits them. */
    static Map<String, Long> expected(long rows, LongUnaryOperator timestampOfId) {
        Map<String, Long> counts = new TreeMap<>();
        for (long id = 0; id < rows; id++) {
            long start = Math.floorDiv(timestampOfId.applyAsLong(id), WINDOW) * WINDOW;
            counts.merge("key-" + (id % KEYS) + "@" + start, 1L, Long::sum);
        }
        return counts;
    }

    StreamEnvironment environment() {
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(parallelism)
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(INTERVAL).withDirectory(checkpoints))
                .setRestartStrategy(restart)
                .setRestore(restore);
        DatagenSource.Builder builder = DatagenSource.builder().keys(KEYS).splits(splits).rowsPerSecond(rowsPerSecond);
        DatagenSource source = (rows > 0 ? builder.rows(rows) : builder).build();
        LongUnaryOperator timestamps = timestampOfId;
        WatermarkStrategy<Event> watermarks = WatermarkStrategy.<Event>forBoundedOutOfOrderness(Duration.ofMillis(5))
                .withTimestampAssigner((event, ignored) -> timestamps.applyAsLong(Long.parseLong(event.id())))
                .withInterval(Duration.ofMillis(20))
                .withIdleness(idleness);
        env.fromSource(source, watermarks, "events").uid("events")
                .map(map).uid("map")
                .keyBy(Event::key, Serializers.STRING)
                .process(CountPerWindow::new).uid("windows")
                .sinkTo(FileSystemSink.builder(output.toString()).build()).uid("files");
        return env;
    }

    JobResult execute(String jobName) throws Exception {
        return environment().execute(jobName);
    }

    JobClient executeAsync(String jobName) throws Exception {
        return environment().executeAsync(jobName);
    }

    /** Counts each key's records per window; the window's event-time timer emits and clears the count. */
    static final class CountPerWindow extends KeyedProcessFunction<String, Event, Event> {

        private MapState<Long, Long> counts;

        @Override
        public void open(KeyedContext context) {
            counts = context.getState(StateDescriptor.map("counts", Serializers.LONG, Serializers.LONG));
        }

        @Override
        public void processElement(Event event, Context<String> context, Collector<Event> out) {
            long start = Math.floorDiv(context.timestamp(), WINDOW) * WINDOW;
            Long count = counts.get(start);
            counts.put(start, count == null ? 1 : count + 1);
            // A late record's window may have fired already: its timer then fires again at once
            // and the row appears twice, which the tests report as a duplicate.
            context.timerService().registerEventTimeTimer(start + WINDOW - 1);
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext<String> context, Collector<Event> out) {
            long start = timestamp + 1 - WINDOW;
            Long count = counts.get(start);
            out.collect(new Event(context.currentKey() + "@" + start, context.currentKey(), "window",
                    count == null ? 0 : count));
            counts.remove(start);
        }
    }
}
