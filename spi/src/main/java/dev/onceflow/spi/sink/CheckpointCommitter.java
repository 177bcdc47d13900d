package dev.onceflow.spi.sink;

/**
 * Remembers, in the external system, which checkpoints a {@link GenericWriteAheadSink} has sent.
 * Called on the subtask's task thread only.
 *
 * <p>Records are keyed by (job, sink uid, subtask, checkpoint id) and must survive crashes and
 * restarts of both the job and the external system. After rescaling, a write-ahead segment keeps
 * the subtask index it was written by, so lookups may name other subtasks than the caller's.
 */
public interface CheckpointCommitter extends AutoCloseable {

    /** Prepares the store (creates the table or index). Called once before any other method. */
    void open() throws Exception;

    /** WAL-2: whether {@link #commitCheckpoint} succeeded for this subtask and checkpoint before. */
    boolean isCheckpointCommitted(int subtaskIndex, long checkpointId) throws Exception;

    /** Durably records that the segment of this subtask and checkpoint was sent. Idempotent. */
    void commitCheckpoint(int subtaskIndex, long checkpointId) throws Exception;

    @Override
    void close() throws Exception;
}
