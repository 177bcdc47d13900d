package dev.onceflow.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
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

    /** The Onceflow enumerator: notes each call it gets, and answers nothing. */
    private static final class RecordingEnumerator implements dev.onceflow.spi.source.SplitEnumerator<Split, String> {
        final List<String> calls = new ArrayList<>();

        @Override
        public void start() {
            calls.add("start");
        }

        @Override
        public void addReader(int subtaskIndex) {
            calls.add("addReader " + subtaskIndex);
        }

        @Override
        public void handleSplitRequest(int subtaskIndex) {
            calls.add("request " + subtaskIndex);
        }

        @Override
        public String snapshotState(long checkpointId) {
            return "state";
        }

        @Override
        public void close() {
        }
    }

    /** Flink's side: notes assignments and "no more splits" signals per reader. */
    private static final class RecordingContext implements SplitEnumeratorContext<BridgedSplit<Split>> {
        final List<String> sent = new ArrayList<>();

        @Override
        public void assignSplits(SplitsAssignment<BridgedSplit<Split>> assignment) {
            assignment.assignment().forEach((reader, splits) -> sent.add("assign " + reader + " "
                    + splits.stream().map(BridgedSplit::splitId).toList()));
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            sent.add("no more " + subtask);
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
            throw new UnsupportedOperationException();
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

    private final RecordingContext flink = new RecordingContext();
    private final RecordingEnumerator enumerator = new RecordingEnumerator();
    private final EnumeratorBridge<Split, String> bridge = new EnumeratorBridge<>(flink);

    EnumeratorBridgeTest() {
        bridge.setEnumerator(enumerator);
        bridge.start();
        bridge.addReader(0);
        bridge.addReader(1);
    }

    @Test
    void aRestartedReaderGetsItsHandedBackSplitsAndOneRequestOnItsBehalfButIsNotAnnouncedAgain() {
        bridge.addSplitsBack(List.of(new BridgedSplit<>(new Split("a")), new BridgedSplit<>(new Split("b"))), 0);

        bridge.addReader(0);

        assertThat(flink.sent).containsExactly("assign 0 [a, b]");
        assertThat(enumerator.calls).containsExactly("start", "addReader 0", "addReader 1", "request 0");
    }

    @Test
    void aRestartedReaderThatRestoredNothingAndGotNothingBackStillGetsARequestAnswered() {
        bridge.addReader(1);

        assertThat(flink.sent).isEmpty();
        assertThat(enumerator.calls).containsExactly("start", "addReader 0", "addReader 1", "request 1");
    }

    @Test
    void aRestartedReaderThatWasToldNoMoreSplitsIsToldAgainAndNoRequestIsMade() {
        bridge.onceflowContext().signalNoMoreSplits(1);
        flink.sent.clear();

        bridge.addReader(1);

        assertThat(flink.sent).containsExactly("no more 1");
        assertThat(enumerator.calls).containsExactly("start", "addReader 0", "addReader 1");
    }

    @Test
    void splitRequestsOfReadersGoToTheEnumerator() {
        bridge.handleSplitRequest(0, "localhost");

        assertThat(enumerator.calls).containsExactly("start", "addReader 0", "addReader 1", "request 0");
    }
}
