package dev.onceflow.spi.sink;

/**
 * Writes upserts for one parallel subtask: an {@link AtLeastOnceWriter} whose writes are keyed by
 * the record. Called on the subtask's task thread only, in the order {@link AtLeastOnceWriter}
 * gives.
 */
public interface IdempotentWriter<IN> extends AtLeastOnceWriter<IN> {

    /**
     * Writes (or buffers) one record. IDEM-1: the write is keyed by an id derived only from the
     * record, so writing it twice leaves the same result as writing it once.
     */
    @Override
    void write(IN record) throws Exception;

    /**
     * IDEM-2 (ALO-1): makes every record written so far durable in the external system. Called at
     * every barrier before the barrier is forwarded, so a completed checkpoint never covers records
     * that are still buffered.
     */
    @Override
    void flush() throws Exception;
}
