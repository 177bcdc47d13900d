package dev.onceflow.spi.sink;

/**
 * The per-subtask half of a {@link BestEffortSink}. Every method is called on the subtask's task
 * thread, never concurrently: {@link #write} any number of times, then {@link #close()} when the
 * job ends, fails or is cancelled. Checkpoint barriers do not reach it (BE-1). After a crash
 * nothing is called and nothing is restored: what the writer had not sent is lost.
 *
 * @param <IN> records written
 */
public interface BestEffortWriter<IN> extends AutoCloseable {

    /** Sends (or buffers) one record; the runtime does not wait for it to be durable. */
    void write(IN record) throws Exception;

    /**
     * Sends what is still buffered, if it can, and releases the writer's resources. When a bounded
     * job ends normally the runtime calls this before the job is reported finished, so a job that
     * ends without a crash delivers everything.
     */
    @Override
    void close() throws Exception;
}
