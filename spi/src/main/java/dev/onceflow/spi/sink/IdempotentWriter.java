package dev.onceflow.spi.sink;

/** Writes upserts for one parallel subtask. Called on the subtask's task thread only. */
public interface IdempotentWriter<IN> extends AutoCloseable {

    /**
     * Writes (or buffers) one record. IDEM-1: the write is keyed by an id derived only from the
     * record, so writing it twice leaves the same result as writing it once.
     */
    void write(IN record) throws Exception;

    /**
     * IDEM-2: makes every record written so far durable in the external system. Called at every
     * barrier before the barrier is forwarded, so a completed checkpoint never covers records that
     * are still buffered.
     */
    void flush() throws Exception;

    @Override
    void close() throws Exception;
}
