package dev.onceflow.connector.datagen;

import dev.onceflow.spi.source.SplitEnumerator;
import dev.onceflow.spi.source.SplitEnumeratorContext;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Hands the datagen splits to readers. The split set is fixed, so there is no discovery.
 *
 * <p><b>{@link DatagenSource.SplitAssignment#ON_DEMAND}</b> (bounded only): the splits are
 * chunks (see {@link DatagenSource#chunks}), handed out on demand: {@value #CHUNKS_PER_NEW_READER}
 * to a reader when it comes up, one more each time it asks, and, once none is left, the signal
 * that no more will come. A reader that runs faster than the others (it gets more CPU, or its
 * sink is faster) takes more chunks, so all readers finish within about one chunk of each other
 * rather than each after a fixed share.
 *
 * <p><b>{@link DatagenSource.SplitAssignment#STATIC}:</b> each reader gets the splits whose
 * {@code index % parallelism} equals its subtask index when it comes up, and keeps them; a bounded
 * source then tells it that nothing more will come, so it can end.
 *
 * <p>After a restore only the splits that were still unassigned at the checkpoint are in the
 * state; the others come back with their readers. Either assignment restores the other's state
 * correctly, since each hands out every unassigned split exactly once.
 */
final class DatagenEnumerator implements SplitEnumerator<DatagenSplit, DatagenEnumeratorState> {

    /**
     * Chunks a reader gets on demand when it comes up. Two, so that it has one to read while the
     * request for the next is on its way.
     */
    static final int CHUNKS_PER_NEW_READER = 2;

    private final SplitEnumeratorContext<DatagenSplit> context;
    private final boolean bounded;
    private final boolean onDemand;
    private final Deque<DatagenSplit> unassigned;

    DatagenEnumerator(SplitEnumeratorContext<DatagenSplit> context, boolean bounded,
            DatagenSource.SplitAssignment assignment, List<DatagenSplit> unassigned) {
        this.context = context;
        this.bounded = bounded;
        this.onDemand = assignment == DatagenSource.SplitAssignment.ON_DEMAND;
        this.unassigned = new ArrayDeque<>(unassigned);
        // A static checkpoint taken before every reader came up can hold splits past the end
        // (rows < splits). Handed out on demand, the reader would drop them and never ask again.
        this.unassigned.removeIf(DatagenSplit::isExhausted);
    }

    @Override
    public void start() {
    }

    @Override
    public void addReader(int subtaskIndex) {
        if (onDemand) {
            assignNext(subtaskIndex, CHUNKS_PER_NEW_READER);
            return;
        }
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
        if (onDemand) {
            assignNext(subtaskIndex, 1);
        }
        // Otherwise the assignment in addReader was complete.
    }

    /** Assigns up to {@code count} splits in order; with none left, tells the reader it may end. */
    private void assignNext(int subtaskIndex, int count) {
        List<DatagenSplit> next = new ArrayList<>(count);
        while (next.size() < count && !unassigned.isEmpty()) {
            next.add(unassigned.poll());
        }
        if (!next.isEmpty()) {
            context.assignSplits(subtaskIndex, next);
        }
        if (unassigned.isEmpty()) {
            // Nothing is ever added back (restores start from the state instead), so this is final.
            context.signalNoMoreSplits(subtaskIndex);
        }
    }

    @Override
    public DatagenEnumeratorState snapshotState(long checkpointId) {
        return new DatagenEnumeratorState(new ArrayList<>(unassigned));
    }

    @Override
    public void close() {
    }
}
