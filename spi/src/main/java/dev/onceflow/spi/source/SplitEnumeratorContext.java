package dev.onceflow.spi.source;

import java.time.Duration;
import java.util.List;

/**
 * What a {@link SplitEnumerator} can ask of the runtime. Every method may be called only on the
 * coordinator thread (from inside an enumerator callback or a periodic action).
 */
public interface SplitEnumeratorContext<SplitT extends SourceSplit> {

    /** Number of parallel readers. */
    int parallelism();

    /**
     * Hands splits to a reader. Ownership moves at once: the next enumerator snapshot must no
     * longer contain them, and the runtime guarantees they reach the reader before the reader
     * sees the barrier of any checkpoint triggered after this call, so every split is in exactly
     * one snapshot (rule SRC-3).
     */
    void assignSplits(int subtaskIndex, List<SplitT> splits);

    /** Tells a reader that it will receive no more splits, so a bounded reader can end. */
    void signalNoMoreSplits(int subtaskIndex);

    /**
     * Runs {@code action} on the coordinator thread every {@code period}, for split discovery.
     * Exceptions thrown by the action fail the job.
     */
    void runPeriodically(Runnable action, Duration period);
}
