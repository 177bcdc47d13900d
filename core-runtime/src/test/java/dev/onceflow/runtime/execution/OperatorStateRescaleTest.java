package dev.onceflow.runtime.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.filesystem.FileSystemSink;
import dev.onceflow.runtime.api.Collector;
import dev.onceflow.runtime.api.ProcessFunction;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.state.ListState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.Serializers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
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

    private static final Map<Integer, List<Long>> RESTORED_LIST = new ConcurrentHashMap<>();
    private static final Map<Integer, List<String>> RESTORED_UNION = new ConcurrentHashMap<>();

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
        RESTORED_LIST.clear();
        RESTORED_UNION.clear();
        JobClient client = job(2, 3_000, dir.resolve("first"), RestoreSetting.fresh()).executeAsync("operator-state");
        await().atMost(Duration.ofSeconds(20)).until(() -> client.progress().recordsRead() >= 1_000);
        CheckpointLocation savepoint = client.triggerSavepoint(true).get(20, TimeUnit.SECONDS);
        JobResult first = client.result().get(20, TimeUnit.SECONDS);
        assertThat(RESTORED_LIST).as("the first run started fresh").isEmpty();

        JobResult second = job(3, 0, dir.resolve("second"), RestoreSetting.fromPath(savepoint)).execute("operator-state");

        assertThat(second.status()).isEqualTo(JobResult.Status.FINISHED);
        assertThat(RESTORED_LIST.keySet()).containsExactlyInAnyOrder(0, 1, 2);
        List<Long> allListEntries = new ArrayList<>();
        RESTORED_LIST.values().forEach(allListEntries::addAll);
        assertThat(allListEntries).as("the two former subtasks' counts, each given to one new subtask").hasSize(2);
        assertThat(allListEntries.stream().mapToLong(Long::longValue).sum())
                .as("together they count every record read before the savepoint").isEqualTo(first.recordsRead());
        assertThat(RESTORED_LIST.values()).as("round robin: no subtask got both").allSatisfy(l -> assertThat(l).hasSizeLessThan(2));
        List<String> union = RESTORED_UNION.get(0);
        assertThat(union).as("union: both former subtasks' entries, in subtask order").hasSize(2);
        assertThat(union.get(0)).startsWith("subtask-0=");
        assertThat(union.get(1)).startsWith("subtask-1=");
        assertThat(new TreeMap<>(RESTORED_UNION)).as("the same whole list on every new subtask")
                .isEqualTo(Map.of(0, union, 1, union, 2, union));
        long unionTotal = union.stream().mapToLong(e -> Long.parseLong(e.substring(e.indexOf('=') + 1))).sum();
        assertThat(unionTotal).isEqualTo(first.recordsRead());
    }

    /** Counts the records of its subtask, restored counts included, into both kinds of list. */
    static final class CountPerSubtask extends ProcessFunction<Event, Event> {

        private ListState<Long> counts;
        private ListState<String> all;
        private int subtask;
        private long count;

        @Override
        public void open(OperatorStateContext context) {
            subtask = context.subtaskIndex();
            counts = context.getListState(StateDescriptor.list("count", Serializers.LONG));
            all = context.getUnionListState(StateDescriptor.list("all-counts", Serializers.STRING));
            if (context.isRestored()) {
                RESTORED_LIST.put(subtask, List.copyOf(counts.get()));
                RESTORED_UNION.put(subtask, List.copyOf(all.get()));
            }
            count = counts.get().stream().mapToLong(Long::longValue).sum();
        }

        @Override
        public void processElement(Event event, Collector<Event> out) {
            count++;
            out.collect(event);
        }

        @Override
        public void snapshotState(long checkpointId) {
            counts.update(List.of(count));
            all.update(List.of("subtask-" + subtask + "=" + count));
        }
    }
}
