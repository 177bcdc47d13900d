package dev.onceflow.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.filesystem.FileSystemSink;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Stream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Onceflow's datagen source and filesystem sink, bridged, in a Flink job on a real (in-process)
 * Flink MiniCluster: datagen ids {@code 0..rows-1} -> keyBy(key) -> a running count per key in
 * Flink keyed state -> the filesystem sink, exactly-once checkpoints every 100 ms. The committed
 * part files must hold every id once with per-key counts exactly 1..n, with and without a failure
 * that makes Flink restart the job from its last checkpoint, and with a failure before the first
 * checkpoint, when Flink hands the readers' splits back to the enumerator. A job without the
 * keyBy has one failover region per subtask: there a failure restarts one reader while the
 * enumerator runs on.
 */
@Timeout(180)
class FlinkBridgeJobTest {

    private static final int KEYS = 10;

    @RegisterExtension
    static final MiniClusterExtension FLINK = BridgeJobs.miniCluster();

    private static final AtomicBoolean FAILED_ONCE = new AtomicBoolean();
    /** How often each subtask of the regional failover case's map was opened. */
    private static final AtomicIntegerArray OPENS = new AtomicIntegerArray(2);
    private static volatile Path output;
    private static volatile String failAt;

    @TempDir
    Path dir;

    @BeforeEach
    void setUp() {
        FAILED_ONCE.set(false);
        OPENS.set(0, 0);
        OPENS.set(1, 0);
        failAt = null;
        output = dir.resolve("out");
    }

    /** Fails once: at {@link #failAt}, or (for "after-commit") at the first id of a hundred seen once a part file is committed. */
    private static Event maybeFail(Event event) throws IOException {
        boolean due = "after-commit".equals(failAt)
                ? Long.parseLong(event.id()) % 100 == 0 && committedFiles(output) > 0
                : event.id().equals(failAt);
        if (due && FAILED_ONCE.compareAndSet(false, true)) {
            throw new IllegalStateException("injected failure at id " + event.id());
        }
        return event;
    }

    private void run(long rows, long rowsPerSecond) throws Exception {
        StreamExecutionEnvironment env = BridgeJobs.environment();
        String path = output.toString();
        env.fromSource(OnceflowSource.of(() -> DatagenSource.builder().rows(rows).keys(KEYS)
                                .rowsPerSecond(rowsPerSecond).splits(4).build(), TypeInformation.of(Event.class)),
                        WatermarkStrategy.noWatermarks(), "events").uid("events")
                .map(FlinkBridgeJobTest::maybeFail).uid("fail-once")
                .keyBy(Event::key)
                .process(new CountPerKey()).uid("count")
                .sinkTo(OnceflowSink.of(() -> FileSystemSink.builder(path).build(), "files")).uid("files");
        BridgeJobs.runToEnd(env, "bridge-" + rows, 90);
    }

    @Test
    void aBoundedJobCommitsEveryIdOnceWithExactCountsPerKey() throws Exception {
        run(20_000, 0);

        assertExactlyOnce(20_000);
    }

    @Test
    void aFailureAfterACommitRestartsFromTheCheckpointAndTheOutputStaysExactlyOnce() throws Exception {
        failAt = "after-commit";

        run(20_000, 10_000);

        assertThat(FAILED_ONCE).as("the failure was injected after a part file was committed").isTrue();
        assertExactlyOnce(20_000);
    }

    @Test
    void aFailureBeforeTheFirstCheckpointGivesTheReadersTheirSplitsAgain() throws Exception {
        failAt = "3";

        run(5_000, 0);

        assertThat(FAILED_ONCE).isTrue();
        assertExactlyOnce(5_000);
    }

    @Test
    void aRegionalFailoverRestartsOneReaderWhileTheEnumeratorRunsOnAndEveryIdIsCommittedOnce() throws Exception {
        StreamExecutionEnvironment env = BridgeJobs.environment();
        String path = output.toString();
        // Chunks on demand: the restarted reader restores what it held at the checkpoint, gets back
        // what it was assigned since, and its requests go to an enumerator that never restarted.
        // About 4 s of input, so a part file is committed while subtask 0 still reads.
        env.fromSource(OnceflowSource.of(() -> DatagenSource.builder().rows(40_000).keys(KEYS).rowsPerSecond(10_000)
                                .splits(4).splitAssignment(DatagenSource.SplitAssignment.ON_DEMAND).build(),
                        TypeInformation.of(Event.class)), WatermarkStrategy.noWatermarks(), "events").uid("events")
                .map(new FailSubtaskZeroOnceAfterACommit()).uid("fail-once")
                .sinkTo(OnceflowSink.of(() -> FileSystemSink.builder(path).build(), "files")).uid("files");

        BridgeJobs.runToEnd(env, "bridge-regional", 90);

        assertThat(FAILED_ONCE).as("the failure was injected after a part file was committed").isTrue();
        assertThat(OPENS.get(0)).as("subtask 0 ran twice").isEqualTo(2);
        assertThat(OPENS.get(1)).as("subtask 1 ran on: the failover was regional").isEqualTo(1);
        Map<String, Integer> occurrences = new HashMap<>();
        List<String> hidden = readOutput(occurrences, new TreeMap<>());
        BridgeJobs.assertEachIdOnce(occurrences, 40_000);
        assertThat(hidden).as("in-progress files left behind").isEmpty();
    }

    /** Subtask 0 fails once, at a record it sees once a part file is committed. */
    private static final class FailSubtaskZeroOnceAfterACommit extends RichMapFunction<Event, Event> {
        private transient int subtask;
        private transient long seen;

        @Override
        public void open(OpenContext context) {
            subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
            OPENS.incrementAndGet(subtask);
        }

        @Override
        public Event map(Event event) throws IOException {
            if (subtask == 0 && ++seen % 50 == 0 && !FAILED_ONCE.get() && committedFiles(output) > 0
                    && FAILED_ONCE.compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure in subtask 0 at id " + event.id());
            }
            return event;
        }
    }

    private void assertExactlyOnce(long rows) throws IOException {
        Map<String, Integer> occurrences = new HashMap<>();
        Map<String, List<Long>> counts = new TreeMap<>();
        List<String> hidden = readOutput(occurrences, counts);
        BridgeJobs.assertExactlyOnce(occurrences, counts, rows, KEYS);
        assertThat(hidden).as("in-progress files left behind").isEmpty();
    }

    /** Reads the committed part files into {@code occurrences} per id and {@code counts} per key; returns the hidden files' names. */
    private static List<String> readOutput(Map<String, Integer> occurrences, Map<String, List<Long>> counts)
            throws IOException {
        List<String> hidden = new ArrayList<>();
        try (Stream<Path> files = Files.list(output)) {
            for (Path file : files.sorted().toList()) {
                String name = file.getFileName().toString();
                if (name.startsWith(".") || name.startsWith("_")) {
                    hidden.add(name);
                    continue;
                }
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    Event event = EventFormat.parse(line);
                    occurrences.merge(event.id(), 1, Integer::sum);
                    counts.computeIfAbsent(event.key(), k -> new ArrayList<>()).add(event.count());
                }
            }
        }
        return hidden;
    }

    private static long committedFiles(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return 0;
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(f -> !f.getFileName().toString().startsWith(".")).count();
        }
    }

    /** The running count of each key, in Flink keyed state: lost or doubled state shows as a wrong count. */
    static final class CountPerKey extends KeyedProcessFunction<String, Event, Event> {
        private transient ValueState<Long> count;

        @Override
        public void open(OpenContext context) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
        }

        @Override
        public void processElement(Event event, Context context, Collector<Event> out) throws IOException {
            Long previous = count.value();
            long next = previous == null ? 1 : previous + 1;
            count.update(next);
            out.collect(event.withCount(next));
        }
    }
}
