package dev.onceflow.connector.datagen;

import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.spi.source.ReaderOutput;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceReaderContext;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

/**
 * Emits the events of the datagen splits assigned to one subtask, taking one record from each
 * split in turn so all splits advance together. Each time a split is exhausted the reader asks
 * the enumerator for another (which hands out chunks that way when the assignment is
 * {@link DatagenSource.SplitAssignment#ON_DEMAND}), until it is told that no more will come.
 *
 * <p>Rate limiting uses a budget computed from {@link System#nanoTime()}: after {@code t} seconds
 * a reader may have emitted {@code t * rate} records; when it is ahead it answers
 * {@link InputStatus#NOTHING_AVAILABLE} and the runtime polls again later. It never sleeps,
 * because a sleeping task thread would delay checkpoint barriers.
 */
final class DatagenReader<T> implements SourceReader<T, DatagenSplit> {

    /** Records per poll: small enough that the task thread gets back to its mailbox quickly. */
    static final int MAX_RECORDS_PER_POLL = 100;

    /** The record of a sequence number. */
    private final LongFunction<T> records;
    private final SourceReaderContext context;
    /** Records per second for this reader; 0 means unlimited. */
    private final double ratePerSecond;
    /** The assigned splits not yet exhausted, with their positions advanced in place. */
    private final List<Position> splits = new ArrayList<>();
    private boolean noMoreSplits;
    private int cursor;
    private long startNanos;
    private long emittedSinceStart;

    DatagenReader(LongFunction<T> records, SourceReaderContext context, double ratePerSecond) {
        this.records = records;
        this.context = context;
        this.ratePerSecond = ratePerSecond;
    }

    @Override
    public void start() {
        startNanos = System.nanoTime();
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) {
        long budget = Math.min(MAX_RECORDS_PER_POLL, allowedNow());
        while (budget > 0 && !splits.isEmpty()) {
            if (cursor >= splits.size()) {
                cursor = 0;
            }
            Position split = splits.get(cursor);
            output.collect(records.apply(split.next));
            emittedSinceStart++;
            budget--;
            if (split.advance()) {
                // Exhausted splits leave the reader, so they are never snapshotted or replayed.
                splits.remove(cursor);
                if (!noMoreSplits) {
                    context.sendSplitRequest();
                }
            } else {
                cursor++;
            }
        }
        if (splits.isEmpty()) {
            return noMoreSplits ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
        }
        return allowedNow() > 0 ? InputStatus.MORE_AVAILABLE : InputStatus.NOTHING_AVAILABLE;
    }

    /** How many records the rate limit allows right now. */
    private long allowedNow() {
        if (ratePerSecond <= 0) {
            return Long.MAX_VALUE;
        }
        double elapsedSeconds = (System.nanoTime() - startNanos) / 1e9;
        // Starts with one record allowed so a very low rate still emits something at once.
        long allowed = 1 + (long) (elapsedSeconds * ratePerSecond);
        return Math.max(0, allowed - emittedSinceStart);
    }

    @Override
    public List<DatagenSplit> snapshotState(long checkpointId) {
        List<DatagenSplit> state = new ArrayList<>(splits.size());
        for (Position split : splits) {
            state.add(split.toSplit());
        }
        return state;
    }

    @Override
    public void addSplits(List<DatagenSplit> newSplits) {
        for (DatagenSplit split : newSplits) {
            if (!split.isExhausted()) {
                splits.add(new Position(split));
            }
        }
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
    }

    @Override
    public void close() {
    }

    /**
     * A split being read, its position advanced in place rather than by a new
     * {@link DatagenSplit} per record. Advances as {@link DatagenSplit#advance()} does.
     */
    private static final class Position {

        private final int index;
        private final int splitCount;
        private final long end;
        private long next;

        Position(DatagenSplit split) {
            this.index = split.index();
            this.splitCount = split.splitCount();
            this.end = split.end();
            this.next = split.next();
        }

        /** Moves past {@link #next}; returns whether the split is now exhausted. */
        boolean advance() {
            next = DatagenSplit.following(next, splitCount, end);
            return next >= end;
        }

        DatagenSplit toSplit() {
            return new DatagenSplit(index, splitCount, next, end);
        }
    }
}
