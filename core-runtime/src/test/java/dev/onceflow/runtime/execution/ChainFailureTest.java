package dev.onceflow.runtime.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.filesystem.FileSystemSink;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.config.RestartStrategy;
import dev.onceflow.runtime.task.Task;
import dev.onceflow.spi.record.Event;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What a job reports when an operator chained behind a source throws. */
@Timeout(60)
class ChainFailureTest {

    @TempDir
    Path dir;

    @Test
    void aCheckedExceptionOfAChainedOperatorIsTheTasksFailureUnwrapped() {
        IOException thrown = new IOException("disk full at record 17");

        assertThat(taskFailureCause(thrown)).isSameAs(thrown);
    }

    @Test
    void anUncheckedExceptionOfAChainedOperatorIsTheTasksFailureAsItIs() {
        IllegalStateException thrown = new IllegalStateException("bad record 17");

        assertThat(taskFailureCause(thrown)).isSameAs(thrown);
    }

    /** Runs a job whose map throws {@code thrown} at record 17; returns the cause of its task's failure. */
    private Throwable taskFailureCause(Exception thrown) {
        Throwable failure = catchThrowable(() -> job(event -> {
            if (event.id().equals("17")) {
                throw thrown;
            }
            return event;
        }).execute("failing"));

        assertThat(failure).isInstanceOf(JobExecutionException.class);
        assertThat(failure.getCause()).isInstanceOf(Task.TaskFailure.class);
        return failure.getCause().getCause();
    }

    /** datagen -> map -> file sink, all chained in one task, no restarts. */
    private StreamEnvironment job(dev.onceflow.runtime.api.MapFunction<Event, Event> map) {
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(1)
                .setRestartStrategy(RestartStrategy.none())
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(Duration.ZERO)
                        .withDirectory(dir.resolve("checkpoints")));
        env.fromSource(DatagenSource.builder().rows(100).keys(5).rowsPerSecond(0).build(), "datagen").uid("datagen")
                .map(map).uid("map")
                .sinkTo(FileSystemSink.builder(dir.resolve("out").toString()).build()).uid("files");
        return env;
    }
}
