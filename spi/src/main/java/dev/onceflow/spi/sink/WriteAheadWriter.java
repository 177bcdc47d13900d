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

    @Override
    void close() throws Exception;
}
