package dev.onceflow.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.conformance.JobProcess;
import dev.onceflow.conformance.Verdict;
import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.filesystem.FileSystemSink;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.cli.CountEventsByKey;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.execution.JobClient;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventSerializer;
import dev.onceflow.spi.serialization.Serializers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A savepoint of a job file's job as it ran before rows (events from the source, a count-by-key over
 * events, a sink of events, with the same uids, built here the way the job file loader built it)
 * resumes in today's job file, which carries rows: source positions, pending part files and every
 * key's count go on, and the output holds each id once with every key's counts 1..n.
 */
@Timeout(300)
class EventSavepointCompatibilityTest {

    private static final long ROWS = 30_000;

    @TempDir
    Path dir;

    @Test
    void aSavepointOfTheEventJobResumesInTheRowJob() throws Exception {
        StreamEnvironment env = StreamEnvironment.create().setParallelism(2).setCheckpointConfig(CheckpointConfig
                .defaults().withInterval(Duration.ofMillis(200)).withDirectory(dir.resolve("checkpoints")));
        env.fromSource(DatagenSource.builder().rows(ROWS).keys(CrashTestJobs.KEYS).rowsPerSecond(6_000).splits(4)
                        .payloadSize(0).build(), "datagen").uid("source").recordSerializer(EventSerializer.INSTANCE)
                .keyBy(Event::key, Serializers.STRING).process(CountEventsByKey::new).uid("count")
                .recordSerializer(EventSerializer.INSTANCE)
                .sinkTo(FileSystemSink.builder(dir.resolve("output").toString()).build()).uid("sink");
        JobClient client = env.executeAsync("crash-test");
        await().atMost(Duration.ofMinutes(1)).until(() -> CrashTestJobs.verdict(dir, ROWS).committedRecords() > 2_000);
        CheckpointLocation savepoint = client.triggerSavepoint(true).get(1, TimeUnit.MINUTES);
        client.result().get(1, TimeUnit.MINUTES);
        assertThat(CrashTestJobs.verdict(dir, ROWS).lost()).as("stopped mid-run").isNotEmpty();

        Path job = CrashTestJobs.write(dir, ROWS, 6_000, "exactly-once", "200ms");
        JobProcess resumed = JobProcess.start(job, savepoint.toString(), JobProcess.Faults.NONE, dir.resolve("run.log"));
        assertThat(resumed.await(3)).as("log:\n%s", resumed.tail()).isZero();

        Verdict verdict = CrashTestJobs.verdict(dir, ROWS);
        assertThat(verdict.exactlyOnce()).as(verdict.describe()).isTrue();
        assertThat(Files.readString(dir.resolve("run.log"))).doesNotContain("non-restored");
    }
}
