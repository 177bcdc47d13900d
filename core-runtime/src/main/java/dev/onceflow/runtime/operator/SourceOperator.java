package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.runtime.state.VersionedValues;
import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.spi.source.ReplayableSource;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceReaderContext;
import dev.onceflow.spi.source.SourceSplit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Hosts one {@link SourceReader}: restores its splits, polls it, snapshots its split positions.
 * Splits are list state, so they spread over the readers when the parallelism changes.
 */
public final class SourceOperator<T, SplitT extends SourceSplit> extends StreamOperator<Void> {

    static final String SPLITS = "splits";

    private final ReplayableSource<T, SplitT, ?> source;
    private SourceReader<T, SplitT> reader;

    public SourceOperator(ReplayableSource<T, SplitT, ?> source) {
        this.source = source;
    }

    @Override
    public void initializeState(RestoredState state) throws Exception {
        reader = source.createReader(new SourceReaderContext() {
            @Override
            public int subtaskIndex() {
                return context.subtaskIndex();
            }

            @Override
            public int parallelism() {
                return context.parallelism();
            }

            @Override
            public void sendSplitRequest() {
                context.taskServices().requestSplit(context.uid(), context.subtaskIndex());
            }
        });
        List<SplitT> restored = new ArrayList<>();
        for (byte[] bytes : state.list(SPLITS)) {
            restored.add(VersionedValues.read(source.splitSerializer(), bytes));
        }
        if (!restored.isEmpty()) {
            reader.addSplits(restored);
        }
    }

    @Override
    public void open() throws Exception {
        reader.start();
        context.taskServices().registerReader(context.uid(), context.subtaskIndex());
    }

    /** Emits the reader's next records to the chain. */
    @SuppressWarnings("unchecked")
    public InputStatus pollNext() throws Exception {
        return reader.pollNext(record -> output.collect(record));
    }

    public void addSplits(List<SplitT> splits) {
        reader.addSplits(splits);
    }

    public void notifyNoMoreSplits() {
        reader.notifyNoMoreSplits();
    }

    @Override
    public void processElement(Void record) {
        throw new UnsupportedOperationException("a source has no input");
    }

    @Override
    public OperatorSnapshot snapshotState(long checkpointId) throws Exception {
        List<byte[]> splits = new ArrayList<>();
        for (SplitT split : reader.snapshotState(checkpointId)) {
            splits.add(VersionedValues.write(source.splitSerializer(), split));
        }
        return new OperatorSnapshot(Map.of(SPLITS, splits), Map.of(), new TreeMap<>());
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
        if (reader != null) {
            reader.close();
        }
    }

    @Override
    public void cancel() {
        try {
            close();
        } catch (Exception ignored) {
            // the job is failing already
        }
    }
}
