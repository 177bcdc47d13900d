package dev.onceflow.runtime.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.filesystem.FileSystemSink;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.config.CheckpointConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operator list state and union list state, taken at parallelism 2 and restored at 3: each
 * subtask's running count is in both. List state hands each former entry to exactly one new
 * subtask; union list state hands all of them to every new subtask.
 */
@Timeout(60)
class OperatorStateRescaleTest {

    @TempDir
    Path dir;

    private StreamEnvironment job(int parallelism, long rowsPerSecond, Path output, RestoreSetting restore) {
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(parallelism)
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(Duration.ofMillis(50))
                        .withDirectory(dir.resolve("checkpoints")))
                .setRestore(restore);
        env.fromSource(DatagenSource.builder().rows(10_000).keys(10).rowsPerSecond(rowsPerSecond).build(), "events")
                .uid("events")
                .process(CountPerSubtask::new).uid("counts")
                .sinkTo(FileSystemSink.builder(output.toString()).build()).uid("files");
        return env;
    }

    @Test
    void listStateIsSplitAndUnionListStateIsGivenWholeToEverySubtaskOnRescale() throws Exception {
        CountPerSubtask.RESTORED_LIST.clear();
        CountPerSubtask.RESTORED_UNION.clear();
        JobClient client = job(2, 3_000, dir.resolve("first"), RestoreSetting.fresh()).executeAsync("operator-state");
        await().atMost(Duration.ofSeconds(20)).until(() -> client.progress().recordsRead() >= 1_000);
        CheckpointLocation savepoint = client.triggerSavepoint(true).get(20, TimeUnit.SECONDS);
        JobResult first = client.result().get(20, TimeUnit.SECONDS);
        assertThat(CountPerSubtask.RESTORED_LIST).as("the first run started fresh").isEmpty();

        JobResult second = job(3, 0, dir.resolve("second"), RestoreSetting.fromPath(savepoint)).execute("operator-state");

        assertThat(second.status()).isEqualTo(JobResult.Status.FINISHED);
        assertThat(CountPerSubtask.RESTORED_LIST.keySet()).containsExactlyInAnyOrder(0, 1, 2);
        List<Long> allListEntries = new ArrayList<>();
        CountPerSubtask.RESTORED_LIST.values().forEach(allListEntries::addAll);
        assertThat(allListEntries).as("the two former subtasks' counts, each given to one new subtask").hasSize(2);
        assertThat(allListEntries.stream().mapToLong(Long::longValue).sum())
                .as("together they count every record read before the savepoint").isEqualTo(first.recordsRead());
        assertThat(CountPerSubtask.RESTORED_LIST.values()).as("round robin: no subtask got both").allSatisfy(l -> assertThat(l).hasSizeLessThan(2));
        List<String> union = CountPerSubtask.RESTORED_UNION.get(0);
        assertThat(union).as("union: both former subtasks' entries, in subtask order").hasSize(2);
        assertThat(union.get(0)).startsWith("subtask-0=");
        assertThat(union.get(1)).startsWith("subtask-1=");
        assertThat(new TreeMap<>(CountPerSubtask.RESTORED_UNION)).as("the same whole list on every new subtask")
                .isEqualTo(Map.of(0, union, 1, union, 2, union));
        long unionTotal = union.stream().mapToLong(e -> Long.parseLong(e.substring(e.indexOf('=') + 1))).sum();
        assertThat(unionTotal).isEqualTo(first.recordsRead());
    }
}
