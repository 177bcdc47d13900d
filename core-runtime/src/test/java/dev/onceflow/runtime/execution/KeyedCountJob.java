package dev.onceflow.runtime.execution;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.filesystem.FileSystemSink;
import dev.onceflow.runtime.cli.CountEventsByKey;
import dev.onceflow.runtime.api.DataStream;
import dev.onceflow.runtime.api.MapFunction;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.config.RestartStrategy;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventSerializer;
import dev.onceflow.spi.serialization.Serializers;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The pipeline the in-process tests run, with real connectors: datagen ids {@code 0..rows-1}
 * over {@link #KEYS} keys -> map -> keyBy(key) -> {@link CountEventsByKey} -> filesystem part files.
 * Operator uids: {@code events}, {@code map}, {@code count}, {@code files}. Public for the tests of
 * other packages (the CLI's status endpoint).
 */
public final class KeyedCountJob {

    public static final int KEYS = 10;
    public static final Duration INTERVAL = Duration.ofMillis(50);

    private final Path checkpoints;
    private final Path output;
    private final long rows;
    private int parallelism = 2;
    private long rowsPerSecond;
    private MapFunction<Event, Event> map = event -> event;
    private RestartStrategy restart = RestartStrategy.none();
    private RestoreSetting restore = RestoreSetting.fresh();
    private boolean allowNonRestoredState;
    private String countUid = "count";
    private int retained = CheckpointConfig.defaults().retained();
    private MeterRegistry meterRegistry;
    private boolean unaligned;
    private MapFunction<Event, Event> afterCount;
    private String afterCountUid = "after-count";

    public KeyedCountJob(Path checkpoints, Path output, long rows) {
        this.checkpoints = checkpoints;
        this.output = output;
        this.rows = rows;
    }

    public KeyedCountJob parallelism(int value) {
        parallelism = value;
        return this;
    }

    public KeyedCountJob rowsPerSecond(long value) {
        rowsPerSecond = value;
        return this;
    }

    public KeyedCountJob map(MapFunction<Event, Event> value) {
        map = value;
        return this;
    }

    public KeyedCountJob restart(RestartStrategy value) {
        restart = value;
        return this;
    }

    public KeyedCountJob restore(RestoreSetting value) {
        restore = value;
        return this;
    }

    public KeyedCountJob allowNonRestoredState(boolean value) {
        allowNonRestoredState = value;
        return this;
    }

    public KeyedCountJob countUid(String value) {
        countUid = value;
        return this;
    }

    /** Completed checkpoints kept on disk. */
    public KeyedCountJob retained(int value) {
        retained = value;
        return this;
    }

    /** Unaligned checkpoints. */
    public KeyedCountJob unaligned(boolean value) {
        unaligned = value;
        return this;
    }

    /** A step after the count (uid {@code after-count}), chained before the sink; none by default. */
    public KeyedCountJob afterCount(MapFunction<Event, Event> value) {
        afterCount = value;
        return this;
    }

    public KeyedCountJob afterCountUid(String value) {
        afterCountUid = value;
        return this;
    }

    public KeyedCountJob meterRegistry(MeterRegistry value) {
        meterRegistry = value;
        return this;
    }

    public StreamEnvironment environment() {
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(parallelism)
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(INTERVAL).withDirectory(checkpoints)
                        .withRetained(retained).withUnaligned(unaligned))
                .setRestartStrategy(restart)
                .setRestore(restore)
                .setAllowNonRestoredState(allowNonRestoredState)
                .setMeterRegistry(meterRegistry);
        DatagenSource source = DatagenSource.builder().rows(rows).keys(KEYS).rowsPerSecond(rowsPerSecond).build();
        DataStream<Event> counted = env.fromSource(source, "events").uid("events")
                .map(map).uid("map").recordSerializer(EventSerializer.INSTANCE)
                .keyBy(Event::key, Serializers.STRING)
                .process(CountEventsByKey::new).uid(countUid);
        if (afterCount != null) {
            counted = counted.map(afterCount).uid(afterCountUid);
        }
        counted.sinkTo(FileSystemSink.builder(output.toString()).build()).uid("files");
        return env;
    }

    public JobResult execute(String jobName) throws Exception {
        return environment().execute(jobName);
    }

    public JobClient executeAsync(String jobName) throws Exception {
        return environment().executeAsync(jobName);
    }
}
