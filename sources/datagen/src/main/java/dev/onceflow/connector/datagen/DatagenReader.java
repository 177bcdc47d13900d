package dev.onceflow.connector.datagen;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.spi.source.ReaderOutput;
import dev.onceflow.spi.source.SourceReader;
import java.util.ArrayList;
import java.util.List;

/**
 * Emits the events of the datagen splits assigned to one subtask, taking one record from each
 * split in turn so all splits advance together.
 *
 * <p>Rate limiting uses a budget computed from {@link System#nanoTime()}: after {@code t} seconds
 * a reader may have emitted {@code t * rate} records; when it is ahead it answers
 * {@link InputStatus#NOTHING_AVAILABLE} and the runtime polls again later. It never sleeps,
 * because a sleeping task thread would delay checkpoint barriers.
 */
final class DatagenReader implements SourceReader<Event, DatagenSplit> {

    /** Records per poll: small enough that the task thread gets back to its mailbox quickly. */
    static final int MAX_RECORDS_PER_POLL = 100;

    private final EventGenerator generator;
    /** Records per second for this reader; 0 means unlimited. */
    private final double ratePerSecond;
    private final List<DatagenSplit> splits = new ArrayList<>();
    private boolean noMoreSplits;
    private int cursor;
    private long startNanos;
    private long emittedSinceStart;

    DatagenReader(EventGenerator generator, double ratePerSecond) {
        this.generator = generator;
        this.ratePerSecond = ratePerSecond;
    }

    @Override
    public void start() {
        startNanos = System.nanoTime();
    }

    @Override
    public InputStatus pollNext(ReaderOutput<Event> output) {
        long budget = Math.min(MAX_RECORDS_PER_POLL, allowedNow());
        while (budget > 0 && !splits.isEmpty()) {
            cursor %= splits.size();
            DatagenSplit split = splits.get(cursor);
            output.collect(generator.eventAt(split.next()));
            emittedSinceStart++;
            budget--;
            DatagenSplit advanced = split.advance();
            if (advanced.isExhausted()) {
                // Exhausted splits leave the reader, so they are never snapshotted or replayed.
                splits.remove(cursor);
            } else {
                splits.set(cursor, advanced);
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
        return List.copyOf(splits);
    }

    @Override
    public void addSplits(List<DatagenSplit> newSplits) {
        for (DatagenSplit split : newSplits) {
            if (!split.isExhausted()) {
                splits.add(split);
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
}
