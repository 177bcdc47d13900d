package dev.onceflow.connector.datagen;

import dev.onceflow.spi.source.SplitEnumerator;
import dev.onceflow.spi.source.SplitEnumeratorContext;
import java.util.ArrayList;
import java.util.List;

/**
 * Hands the datagen splits to readers. The split set is fixed, so there is no discovery: each
 * reader gets the splits whose {@code index % parallelism} equals its subtask index when it comes
 * up. A bounded source then tells the reader that nothing more will come, so it can end.
 *
 * <p>After a restore only the splits that were still unassigned at the checkpoint are in the
 * state; the others come back with their readers.
 */
final class DatagenEnumerator implements SplitEnumerator<DatagenSplit, DatagenEnumeratorState> {

    private final SplitEnumeratorContext<DatagenSplit> context;
    private final boolean bounded;
    private final List<DatagenSplit> unassigned;

    DatagenEnumerator(SplitEnumeratorContext<DatagenSplit> context, boolean bounded, List<DatagenSplit> unassigned) {
        this.context = context;
        this.bounded = bounded;
        this.unassigned = new ArrayList<>(unassigned);
    }

    @Override
    public void start() {
    }

    @Override
    public void addReader(int subtaskIndex) {
        int parallelism = context.parallelism();
        List<DatagenSplit> mine = new ArrayList<>();
        for (var splits = unassigned.iterator(); splits.hasNext(); ) {
            DatagenSplit split = splits.next();
            if (split.index() % parallelism == subtaskIndex) {
                mine.add(split);
                splits.remove();
            }
        }
        if (!mine.isEmpty()) {
            context.assignSplits(subtaskIndex, mine);
        }
        if (bounded) {
            // Every split this reader will ever get from us was just assigned (the assignment is
            // a pure function of the index), so it may end once they are read.
            context.signalNoMoreSplits(subtaskIndex);
        }
    }

    @Override
    public void handleSplitRequest(int subtaskIndex) {
        // Readers never ask: the assignment in addReader is complete.
    }

    @Override
    public DatagenEnumeratorState snapshotState(long checkpointId) {
        return new DatagenEnumeratorState(unassigned);
    }

    @Override
    public void close() {
    }
}
