package dev.onceflow.runtime.execution;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.filesystem.FileSystemSink;
import dev.onceflow.runtime.api.MapFunction;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.cli.CountByKey;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.config.RestartStrategy;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.Serializers;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The pipeline the in-process tests run, with real connectors: datagen ids {@code 0..rows-1}
 * over {@link #KEYS} keys -> map -> keyBy(key) -> {@link CountByKey} -> filesystem part files.
 */
final class KeyedCountJob {

    static final int KEYS = 10;
    static final Duration INTERVAL = Duration.ofMillis(50);

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

    KeyedCountJob(Path checkpoints, Path output, long rows) {
        this.checkpoints = checkpoints;
        this.output = output;
        this.rows = rows;
    }

    KeyedCountJob parallelism(int value) {
        parallelism = value;
        return this;
    }

    KeyedCountJob rowsPerSecond(long value) {
        rowsPerSecond = value;
        return this;
    }

    KeyedCountJob map(MapFunction<Event, Event> value) {
        map = value;
        return this;
    }

    KeyedCountJob restart(RestartStrategy value) {
        restart = value;
        return this;
    }

    KeyedCountJob restore(RestoreSetting value) {
        restore = value;
        return this;
    }

    KeyedCountJob allowNonRestoredState(boolean value) {
        allowNonRestoredState = value;
        return this;
    }

    KeyedCountJob countUid(String value) {
        countUid = value;
        return this;
    }

    StreamEnvironment environment() {
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(parallelism)
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(INTERVAL).withDirectory(checkpoints))
                .setRestartStrategy(restart)
                .setRestore(restore)
                .setAllowNonRestoredState(allowNonRestoredState);
        DatagenSource source = DatagenSource.builder().rows(rows).keys(KEYS).rowsPerSecond(rowsPerSecond).build();
        env.fromSource(source, "events").uid("events")
                .map(map).uid("map")
                .keyBy(Event::key, Serializers.STRING)
                .process(CountByKey::new).uid(countUid)
                .sinkTo(FileSystemSink.builder(output.toString()).build()).uid("files");
        return env;
    }

    JobResult execute(String jobName) throws Exception {
        return environment().execute(jobName);
    }

    JobClient executeAsync(String jobName) throws Exception {
        return environment().executeAsync(jobName);
    }
}
