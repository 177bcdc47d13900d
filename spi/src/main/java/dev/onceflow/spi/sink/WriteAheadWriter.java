package dev.onceflow.spi.sink;

/**
 * Sends the records of completed checkpoints to the external system. Called on the subtask's task
 * thread only.
 */
public interface WriteAheadWriter<IN> extends AutoCloseable {

    /**
     * Sends every record that arrived before barrier {@code checkpointId} (and after the previous
     * one). Called after that checkpoint completed and only if the committer does not hold it yet.
     * WAL-1: the same records may be sent again after a crash (between send and commit), so the
     * send should be idempotent (deterministic ids) or atomic with the committer.
     *
     * @return {@code true} if every record was sent; {@code false} to keep them and retry at the
     *     next completed checkpoint (never drop them)
     */
    boolean sendValues(Iterable<IN> values, long checkpointId, long timestamp) throws Exception;

    /**
     * Sends the segment that subtask {@code subtaskIndex} wrote for checkpoint
     * {@code checkpointId}. The runtime calls this method, not the three-argument one; after
     * rescaling {@code subtaskIndex} may name a former subtask rather than the caller's own.
     *
     * <p>Override it to make the send atomic with the committer's record (WAL-3): write the
     * records and the marker of ({@code subtaskIndex}, {@code checkpointId}) that
     * {@link CheckpointCommitter#isCheckpointCommitted} looks for in one transaction of the
     * external system; {@link CheckpointCommitter#commitCheckpoint} must then tolerate finding the
     * marker already there. The default delegates to {@link #sendValues(Iterable, long, long)}.
     *
     * @return {@code true} if every record was sent; {@code false} to keep them and retry at the
     *     next completed checkpoint (never drop them)
     */
    default boolean sendValues(Iterable<IN> values, int subtaskIndex, long checkpointId, long timestamp)
            throws Exception {
        return sendValues(values, checkpointId, timestamp);
    }

    @Override
    void close() throws Exception;
}
