package dev.onceflow.spi.source;

import dev.onceflow.spi.checkpoint.CheckpointListener;

/**
 * Discovers splits and assigns them to readers. One instance per job, created on start or restore.
 *
 * <p><b>Thread.</b> Every method is called on the coordinator thread, never concurrently.
 *
 * <p><b>After a crash.</b> The enumerator is recreated from the state returned by the last
 * completed checkpoint's {@link #snapshotState(long)}; splits assigned before that snapshot are
 * restored with their readers, not with the enumerator. The state must therefore hold exactly the
 * splits not yet assigned, plus whatever the enumerator needs to avoid rediscovering assigned
 * ones (for example the set of files already seen).
 */
public interface SplitEnumerator<SplitT extends SourceSplit, StateT> extends CheckpointListener, AutoCloseable {

    /** Called once before any other method. Discovery usually starts here. */
    void start();

    /** A reader came up (at job start and after every restore). Assign its first splits here. */
    void addReader(int subtaskIndex);

    /**
     * A reader asked for more splits via {@link SourceReaderContext#sendSplitRequest()}. Requests may
     * come at any time after {@link #addReader}, more than once from the same reader, and from a
     * reader that still has splits: a runtime may also pass one on a restarted reader's behalf (the
     * Flink bridge does, after a regional failover). An enumerator with nothing to hand out, or that
     * assigns only in {@link #addReader}, ignores it; one that answers must assign each split once,
     * as everywhere else.
     */
    void handleSplitRequest(int subtaskIndex);

    /**
     * Returns the enumerator's state for checkpoint {@code checkpointId}. Called when the
     * coordinator triggers the checkpoint, before any reader snapshots. Must not return a mutable
     * object the enumerator keeps changing.
     */
    StateT snapshotState(long checkpointId) throws Exception;

    /** Releases resources. Called once, when the job ends or fails. */
    @Override
    void close() throws Exception;
}
