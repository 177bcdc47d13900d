package dev.onceflow.flink;

import dev.onceflow.spi.source.ReplayableSource;
import dev.onceflow.spi.source.SourceSplit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;

/**
 * Runs an Onceflow source reader in a Flink source task. Both are polled on the task thread and
 * must not block; Onceflow readers have no availability future, so when one has nothing, Flink
 * is told to poll again after a millisecond, as Onceflow's source task does.
 */
final class ReaderBridge<T, S extends SourceSplit> implements SourceReader<T, BridgedSplit<S>> {

    private static final Executor RETRY = CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS);

    private final dev.onceflow.spi.source.SourceReader<T, S> reader;
    private final OutputBridge<T> output = new OutputBridge<>();

    ReaderBridge(ReplayableSource<T, S, ?> source, SourceReaderContext flink) throws Exception {
        this.reader = source.createReader(new dev.onceflow.spi.source.SourceReaderContext() {
            @Override
            public int subtaskIndex() {
                return flink.getIndexOfSubtask();
            }

            @Override
            public int parallelism() {
                return flink.currentParallelism();
            }

            @Override
            public void sendSplitRequest() {
                flink.sendSplitRequest();
            }
        });
    }

    @Override
    public void start() {
        try {
            reader.start();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("the source reader failed to start: " + e, e);
        }
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> flinkOutput) throws Exception {
        output.target = flinkOutput;
        return switch (reader.pollNext(output)) {
            case MORE_AVAILABLE -> InputStatus.MORE_AVAILABLE;
            case NOTHING_AVAILABLE -> InputStatus.NOTHING_AVAILABLE;
            case END_OF_INPUT -> InputStatus.END_OF_INPUT;
        };
    }

    @Override
    public List<BridgedSplit<S>> snapshotState(long checkpointId) {
        try {
            List<BridgedSplit<S>> splits = new ArrayList<>();
            reader.snapshotState(checkpointId).forEach(split -> splits.add(new BridgedSplit<>(split)));
            return splits;
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            // Flink's signature has no checked exception; the checkpoint fails either way.
            throw new IllegalStateException("the source reader could not snapshot checkpoint " + checkpointId + ": " + e, e);
        }
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return CompletableFuture.runAsync(() -> { }, RETRY);
    }

    @Override
    public void addSplits(List<BridgedSplit<S>> splits) {
        List<S> unwrapped = new ArrayList<>(splits.size());
        splits.forEach(split -> unwrapped.add(split.split()));
        reader.addSplits(unwrapped);
    }

    @Override
    public void notifyNoMoreSplits() {
        reader.notifyNoMoreSplits();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        reader.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        reader.notifyCheckpointAborted(checkpointId);
    }

    @Override
    public void close() throws Exception {
        reader.close();
    }

    /** Onceflow's reader output, writing to the Flink output of the current poll. */
    private static final class OutputBridge<T> implements dev.onceflow.spi.source.ReaderOutput<T> {
        private ReaderOutput<T> target;

        @Override
        public void collect(T record) {
            target.collect(record);
        }

        @Override
        public void collect(T record, long timestamp) {
            target.collect(record, timestamp);
        }
    }
}
