package dev.onceflow.spi.serialization;

import java.io.IOException;

/**
 * Writes and reads one type of value that goes into a checkpoint: a transaction handle, a split
 * position, a write-ahead record, enumerator state, a keyed state value.
 *
 * <p><b>Why versioned.</b> A savepoint written by version N of a connector must restore in
 * version N+1. The runtime stores {@link #version()} next to every serialized value and hands it
 * back to {@link #deserialize(int, byte[])}, so a serializer can read every format it ever wrote.
 *
 * <p><b>Contract</b> (rules SER-1 to SER-4 in {@code docs/spec.md}):
 * <ul>
 *   <li>SER-1: {@code deserialize(version(), serialize(v))} equals {@code v}.</li>
 *   <li>SER-2: a new version of a serializer keeps reading every version it wrote before, or
 *       throws an {@link IOException} naming the version it cannot read; it never guesses.</li>
 *   <li>SER-3: bytes are input, not trusted code: no {@code java.io.Serializable}, no class names
 *       read from the bytes, and lengths are checked before they are allocated.</li>
 *   <li>SER-4: instances are stateless and may be called from any thread.</li>
 * </ul>
 *
 * @param <T> the type of value written
 */
public interface SimpleVersionedSerializer<T> {

    /** The version of the format {@link #serialize} writes now. Positive; only ever grows. */
    int version();

    /**
     * Serializes a value in the format of {@link #version()}. Called by the runtime when it takes
     * a checkpoint, on the task thread or a snapshot thread.
     *
     * @throws IOException if the value cannot be written; the task fails and the job restarts
     *     from the last completed checkpoint (as its restart strategy allows)
     */
    byte[] serialize(T value) throws IOException;

    /**
     * Reads a value written by this serializer at {@code version}. Called when a job restores.
     *
     * @throws IOException if the bytes are corrupt or the version is unknown; the restore then
     *     fails with this message, it never proceeds with a guess
     */
    T deserialize(int version, byte[] serialized) throws IOException;
}
