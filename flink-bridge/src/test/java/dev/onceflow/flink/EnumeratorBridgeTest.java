package dev.onceflow.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.connector.datagen.DatagenEnumeratorState;
import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.datagen.DatagenSplit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.junit.jupiter.api.Test;

/**
 * What the bridge tells an Onceflow enumerator, and Flink, when a reader registers a second time:
 * Flink's regional failover restarts a reader while the enumerator keeps running. Flink's side is
 * a recording context here; {@code FlinkBridgeJobTest} runs the same path on a real MiniCluster.
 */
class EnumeratorBridgeTest {

    private record Split(String splitId) implements dev.onceflow.spi.source.SourceSplit {
    }

    /** What the enumerator was called with and what Flink was told, in the order it happened. */
    private final List<String> log = new ArrayList<>();

    /** The Onceflow enumerator: notes each call it gets, and answers nothing. */
    private final class RecordingEnumerator implements dev.onceflow.spi.source.SplitEnumerator<Split, String> {

        @Override
        public void start() {
            log.add("start");
        }

        @Override
        public void addReader(int subtaskIndex) {
            log.add("addReader " + subtaskIndex);
        }

        @Override
        public void handleSplitRequest(int subtaskIndex) {
            log.add("request " + subtaskIndex);
        }

        @Override
        public String snapshotState(long checkpointId) {
            return "state";
        }

        @Override
        public void close() {
        }
    }

    /**
     * Flink's side: notes assignments and "no more splits" signals per reader, and refuses them for
     * a reader that is not registered, as Flink's context does.
     */
    private final class RecordingContext<T extends org.apache.flink.api.connector.source.SourceSplit>
            implements SplitEnumeratorContext<T> {
        final java.util.Set<Integer> registered = new java.util.HashSet<>();

        @Override
        public void assignSplits(SplitsAssignment<T> assignment) {
            assignment.assignment().forEach((reader, splits) -> {
                assertThat(registered).as("readers registered when reader %d is assigned", reader).contains(reader);
                log.add("flink: assign " + reader + " " + splits.stream().map(T::splitId).toList());
            });
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            log.add("flink: no more " + subtask);
        }

        @Override
        public int currentParallelism() {
            return 2;
        }

        @Override
        public SplitEnumeratorMetricGroup metricGroup() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Map<Integer, ReaderInfo> registeredReaders() {
            Map<Integer, ReaderInfo> readers = new java.util.HashMap<>();
            registered.forEach(subtask -> readers.put(subtask, new ReaderInfo(subtask, "localhost")));
            return readers;
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler, long initialDelay,
                long period) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void runInCoordinatorThread(Runnable runnable) {
            throw new UnsupportedOperationException();
        }
    }

    private final RecordingContext<BridgedSplit<Split>> flink = new RecordingContext<>();
    private final EnumeratorBridge<Split, String> bridge = new EnumeratorBridge<>(flink);

    EnumeratorBridgeTest() {
        bridge.setEnumerator(new RecordingEnumerator());
        bridge.start();
        register(flink, bridge, 0);
        register(flink, bridge, 1);
        log.clear();
    }

    /** A reader registers: Flink notes it, then tells the enumerator (its order in Flink 2.x). */
    private static void register(RecordingContext<?> flink, SplitEnumerator<?, ?> bridge, int subtask) {
        flink.registered.add(subtask);
        bridge.addReader(subtask);
    }

    /** A reader fails: Flink forgets it and hands back what it was assigned since the checkpoint. */
    private static <T extends org.apache.flink.api.connector.source.SourceSplit> void fail(RecordingContext<T> flink,
            SplitEnumerator<T, ?> bridge, int subtask, List<T> assignedSinceCheckpoint) {
        flink.registered.remove(subtask);
        bridge.addSplitsBack(new ArrayList<>(assignedSinceCheckpoint), subtask);
    }

    @Test
    void aRestartedReaderGetsItsHandedBackSplitsAndAsksForMoreItselfSoNoRequestIsPassedOn() {
        fail(flink, bridge, 0, List.of(new BridgedSplit<>(new Split("a")), new BridgedSplit<>(new Split("b"))));

        register(flink, bridge, 0);

        assertThat(log).containsExactly("flink: assign 0 [a, b]");
    }

    @Test
    void aRestartedReaderThatGotNothingBackHasARequestPassedOnInsteadOfBeingAnnouncedAgain() {
        fail(flink, bridge, 1, List.of());

        register(flink, bridge, 1);

        assertThat(log).containsExactly("request 1");
    }

    @Test
    void aRestartedReaderThatWasToldNoMoreSplitsIsToldAgainAndNoRequestIsPassedOn() {
        bridge.onceflowContext().signalNoMoreSplits(1);
        fail(flink, bridge, 1, List.of());
        log.clear();

        register(flink, bridge, 1);

        assertThat(log).containsExactly("flink: no more 1");
    }

    /**
     * An enumerator that discovers splits while a reader is down (a continuous file or Kafka
     * source) assigns them to it: Flink would refuse that and fail the job, so the bridge holds them
     * and the "no more splits" after them until the reader registers. A checkpoint in between is
     * refused.
     */
    @Test
    void splitsAndNoMoreSplitsForAReaderThatIsDownAreHeldUntilItRegisters() throws Exception {
        fail(flink, bridge, 1, List.of());

        bridge.onceflowContext().assignSplits(1, List.of(new Split("found-while-down")));
        bridge.onceflowContext().signalNoMoreSplits(1);
        assertThat(log).as("nothing sent to a reader that is down").isEmpty();
        assertThatThrownBy(() -> bridge.snapshotState(7))
                .hasMessageContaining("checkpoint 7 refused");
        register(flink, bridge, 1);

        assertThat(log).containsExactly("flink: assign 1 [found-while-down]", "flink: no more 1");
        assertThat(bridge.snapshotState(8)).isEqualTo("state");
    }

    @Test
    void splitRequestsOfReadersGoToTheEnumerator() {
        bridge.handleSplitRequest(0, "localhost");

        assertThat(log).containsExactly("request 0");
    }

    /**
     * The datagen enumerator on demand, 5,000 rows in 5 chunks: each reader gets two when it first
     * comes up. Reader 0 restarts with nothing handed back (its request was lost): the request
     * passed on gets it the last chunk, and with that none is left, so it is told no more will
     * come. Reader 1 restarts the same way and is told so too, instead of waiting.
     */
    @Test
    void withTheDatagenEnumeratorOnDemandARestartedReaderGetsAChunkOrIsToldNoMoreInsteadOfWaiting() throws Exception {
        RecordingContext<BridgedSplit<DatagenSplit>> context = new RecordingContext<>();
        EnumeratorBridge<DatagenSplit, DatagenEnumeratorState> datagen = new EnumeratorBridge<>(context);
        DatagenSource source = DatagenSource.builder()
                .rows(5_000).splits(1).splitAssignment(DatagenSource.SplitAssignment.ON_DEMAND)
                .build();
        datagen.setEnumerator(source.createEnumerator(datagen.onceflowContext()));
        datagen.start();
        register(context, datagen, 0);
        register(context, datagen, 1);

        fail(context, datagen, 0, List.of());
        register(context, datagen, 0);
        fail(context, datagen, 1, List.of());
        register(context, datagen, 1);

        assertThat(log).containsExactly(
                "flink: assign 0 [datagen-0-until-1000, datagen-0-until-2000]",
                "flink: assign 1 [datagen-0-until-3000, datagen-0-until-4000]",
                "flink: assign 0 [datagen-0-until-5000]",
                "flink: no more 0",
                "flink: no more 1");
    }
}
