package dev.onceflow.runtime.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.checkpoint.CheckpointKind;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.checkpoint.CheckpointStorage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A stop-with-savepoint taken mid-run, restored by the same job, by a changed job, and at another
 * parallelism: the output of both runs together holds every id exactly once.
 */
@Timeout(60)
class SavepointRestoreTest {

    private static final long ROWS = 3_000;

    @TempDir
    Path dir;

    Path checkpoints;
    Path output;

    @BeforeEach
    void setUp() {
        checkpoints = dir.resolve("checkpoints");
        output = dir.resolve("output");
    }

    /**
     * Runs the job at {@code parallelism}, rate-limited so it is still running, and stops it with
     * a savepoint once some records were read. Returns the savepoint directory.
     */
    private CheckpointLocation runUntilStoppedWithSavepoint(String jobName, int parallelism, Path out) throws Exception {
        JobClient client = new KeyedCountJob(checkpoints, out, ROWS).parallelism(parallelism).rowsPerSecond(3_000)
                .executeAsync(jobName);
        await().atMost(Duration.ofSeconds(20)).until(() -> client.progress().recordsRead() >= 300);

        CheckpointLocation savepoint = client.triggerSavepoint(true).get(20, TimeUnit.SECONDS);

        JobResult first = client.result().get(20, TimeUnit.SECONDS);
        assertThat(first.status()).isEqualTo(JobResult.Status.FINISHED);
        assertThat(first.recordsRead()).as("stopped mid-run").isLessThan(ROWS);
        assertThat(first.lastCheckpoint()).isEqualTo(savepoint);
        assertThat(savepoint.name()).startsWith("savepoint-");
        assertThat(savepoint.toPath().resolve("_metadata")).exists();
        assertThat(CheckpointStorage.load(savepoint).metadata().kind()).isEqualTo(CheckpointKind.SAVEPOINT);
        CommittedOutput partial = CommittedOutput.read(out);
        assertThat(partial.lines).as("everything before the savepoint is committed when the job stops")
                .isEqualTo(first.recordsRead());
        assertThat(partial.duplicated()).isEmpty();
        return savepoint;
    }

    private static void assertExactlyOnce(CommittedOutput out) {
        assertThat(out.lost(ROWS)).as("lost ids; %s", out.summary(ROWS)).isEmpty();
        assertThat(out.duplicated()).as("duplicated ids; %s", out.summary(ROWS)).isEmpty();
        assertThat(out.lines).isEqualTo(ROWS);
        assertThat(out.hiddenFiles).as("in-progress files left behind").isEmpty();
    }

    @Test
    void stopWithSavepointThenRestoreCompletesTheJobExactlyOnce() throws Exception {
        CheckpointLocation savepoint = runUntilStoppedWithSavepoint("resumable", 2, output);

        JobResult second = new KeyedCountJob(checkpoints, output, ROWS).restore(RestoreSetting.fromPath(savepoint))
                .execute("resumable");

        assertThat(second.status()).isEqualTo(JobResult.Status.FINISHED);
        CommittedOutput out = CommittedOutput.read(output);
        assertExactlyOnce(out);
        assertThat(out.wrongCounts(ROWS, KeyedCountJob.KEYS)).as("keyed counts continue from the savepoint").isEmpty();
        assertThat(out.attempts).as("both runs committed part files").hasSize(2);
        assertThat(second.recordsRead()).as("the second run read only what the first did not")
                .isEqualTo(ROWS - (out.lines - second.recordsWritten()));
        assertThat(savepoint.toPath().resolve("_metadata")).as("savepoints are never pruned").exists();
    }

    @Test
    void aSavepointWithStateOfAnUnknownOperatorIsRefusedUnlessAllowed() throws Exception {
        Path firstOutput = dir.resolve("output-v1");
        Path secondOutput = dir.resolve("output-v2");
        CheckpointLocation savepoint = runUntilStoppedWithSavepoint("changed", 2, firstOutput);
        KeyedCountJob renamed = new KeyedCountJob(checkpoints, secondOutput, ROWS).countUid("count-v2")
                .restore(RestoreSetting.fromPath(savepoint));

        assertThatThrownBy(() -> renamed.executeAsync("changed"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(savepoint.toString())
                .hasMessageContaining("holds state of operators [count]")
                .hasMessageContaining("allow non-restored state");
        assertThat(CommittedOutput.read(secondOutput).lines).as("nothing ran").isZero();

        JobResult result = renamed.allowNonRestoredState(true).execute("changed");

        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        assertExactlyOnce(CommittedOutput.read(firstOutput, secondOutput));
        assertThat(CommittedOutput.read(secondOutput).countsNotStartingAtOne())
                .as("the renamed step starts with empty state").isEmpty();
    }

    /** Keys would hash to other key groups and their state would go missing: refused before anything runs. */
    @Test
    void aSavepointIsRefusedByAJobWithAnotherMaxParallelism() throws Exception {
        Path secondOutput = dir.resolve("output-v2");
        CheckpointLocation savepoint = runUntilStoppedWithSavepoint("max-parallelism", 2, output);
        StreamEnvironment changed = new KeyedCountJob(checkpoints, secondOutput, ROWS)
                .restore(RestoreSetting.fromPath(savepoint)).environment().setMaxParallelism(256);

        assertThatThrownBy(() -> changed.executeAsync("max-parallelism"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(savepoint.toString())
                .hasMessageContaining("was taken with max-parallelism 128 but the job has 256");
        assertThat(CommittedOutput.read(secondOutput).lines).as("nothing ran").isZero();
    }

    @ParameterizedTest(name = "restore at parallelism {0}")
    @ValueSource(ints = {3, 1})
    void aSavepointTakenAtParallelismTwoRestoresAtAnotherParallelism(int parallelism) throws Exception {
        CheckpointLocation savepoint = runUntilStoppedWithSavepoint("rescaled-" + parallelism, 2, output);
        CommittedOutput before = CommittedOutput.read(output);

        JobResult second = new KeyedCountJob(checkpoints, output, ROWS).parallelism(parallelism)
                .restore(RestoreSetting.fromPath(savepoint)).execute("rescaled-" + parallelism);

        assertThat(second.status()).isEqualTo(JobResult.Status.FINISHED);
        CommittedOutput out = CommittedOutput.read(output);
        assertExactlyOnce(out);
        assertThat(out.wrongCounts(ROWS, KeyedCountJob.KEYS))
                .as("keyed state moved with its key groups to the new subtasks").isEmpty();
        assertThat(second.recordsRead()).as("source splits resumed at their positions, nothing replayed")
                .isEqualTo(ROWS - before.lines);
        assertThat(out.subtasks).as("sink subtasks of both runs")
                .containsExactlyElementsOf(IntStream.range(0, Math.max(2, parallelism)).boxed().toList());
    }
}
