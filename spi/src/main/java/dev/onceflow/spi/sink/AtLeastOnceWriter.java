package dev.onceflow.spi.sink;

/**
 * The per-subtask half of an {@link AtLeastOnceSink}: records are written as they come and made
 * durable at every barrier. The rules (ALO-1, ALO-2) are in {@code docs/spec.md}.
 *
 * <p><b>Thread.</b> Every method is called on the subtask's task thread, never concurrently.
 *
 * <p><b>Order of calls in one attempt.</b> {@link #write} any number of times, {@link #flush()} at
 * every barrier before the barrier is forwarded and once at end of input, {@link #close()} when
 * the job ends, fails or is cancelled (not after a crash: then nothing is called).
 *
 * <p><b>After a crash.</b> What {@link #flush()} returned for is in the external system; what was
 * written after the last flush of a completed checkpoint is replayed by the source and written
 * again, whether or not the dead attempt had already sent it. Nothing is restored into the writer:
 * it keeps no checkpointed state.
 *
 * @param <IN> records written
 */
public interface AtLeastOnceWriter<IN> extends AutoCloseable {

    /**
     * Writes (or buffers) one record. ALO-2: a record replayed after a crash is written again; an
     * at-least-once writer MAY append it a second time.
     */
    void write(IN record) throws Exception;

    /**
     * ALO-1: makes every record written so far durable in the external system, or throws. Called
     * at every barrier before the barrier is forwarded, and at end of input, so a completed
     * checkpoint never covers a record that is still in a buffer: the source would not replay it.
     * An exception fails the job; the checkpoint of that barrier does not complete.
     */
    void flush() throws Exception;

    /** Releases the writer's resources. Called once, also after a failed {@link #flush()}. */
    @Override
    void close() throws Exception;
}
