package dev.onceflow.spi.source;

import dev.onceflow.spi.checkpoint.CheckpointListener;
import java.util.List;

/**
 * Reads the splits assigned to one parallel subtask and emits their records.
 *
 * <p><b>Thread.</b> Every method is called on the subtask's task thread, never concurrently, so
 * the reader needs no locks. {@link #pollNext} must not block for long (at most a few
 * milliseconds): checkpoint barriers and notifications wait while it does.
 *
 * <p><b>Order of calls.</b> {@link #addSplits} with the restored splits (if any), {@link #start()},
 * then {@link #pollNext} in a loop interleaved with {@link #snapshotState}, {@link #addSplits},
 * {@link #notifyNoMoreSplits} and checkpoint notifications, then {@link #close()}.
 *
 * <p><b>Replay</b> (rules SRC-1 and SRC-2 in {@code docs/spec.md}): after a restore the reader
 * gets back the splits it returned from {@code snapshotState(n)} and must emit exactly the records
 * it would have emitted after that snapshot, in the same order within a split: none skipped,
 * none repeated.
 */
public interface SourceReader<T, SplitT extends SourceSplit> extends CheckpointListener, AutoCloseable {

    /** Called once, after restored splits were added and before the first poll. */
    void start() throws Exception;

    /**
     * Emits the next records (a small batch: the runtime checks its mailbox between calls) and
     * says whether more are available at once.
     */
    InputStatus pollNext(ReaderOutput<T> output) throws Exception;

    /**
     * Returns every split this reader owns with its position just after the last record emitted
     * by {@link #pollNext} so far, including finished splits a bounded source must not read again
     * (or leave those out if they will never be read again). Called on the task thread between two
     * polls; the barrier follows the records emitted before it.
     */
    List<SplitT> snapshotState(long checkpointId) throws Exception;

    /** Takes ownership of splits, from the enumerator or from a restored checkpoint. */
    void addSplits(List<SplitT> splits);

    /** The enumerator will assign no more splits to this reader. */
    void notifyNoMoreSplits();

    /** Releases resources. Called once. */
    @Override
    void close() throws Exception;
}
