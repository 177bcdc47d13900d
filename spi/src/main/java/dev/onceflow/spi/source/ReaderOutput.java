package dev.onceflow.spi.source;

import java.io.IOException;

/**
 * Where a {@link SourceReader} emits records. Valid only during the call to {@code pollNext}, on
 * the task thread.
 */
public interface ReaderOutput<T> {

    /** Emits one record downstream. Never blocks the reader for long: channels are batched. */
    void collect(T record);

    /**
     * Emits one record with the time it carries in the external system (a Kafka record's
     * timestamp, a file's modification time), in milliseconds since the epoch. The runtime keeps
     * it as the record's timestamp unless the job's watermark strategy assigns another one, and
     * derives event time from it; a reader whose records have no such time calls
     * {@link #collect(Object)}. After a restore the reader must emit the same timestamp with the
     * same record again (rule SRC-1), or event-time results of the replay differ from the first run.
     *
     * <p>The default drops the timestamp; the runtime overrides it. Test harnesses that do not care
     * about time need not.
     */
    default void collect(T record, long timestamp) {
        collect(record);
    }

    /**
     * Hands over a record this reader read but cannot turn into a record of its type: its bytes do
     * not decode in the job's format, or do not fit the schema (rule FMT-2). Called on the task
     * thread during {@code pollNext}, in place of {@link #collect(Object)}, at the record's place in
     * the input. The reader's position moves past the record as if it had been emitted, so the
     * next checkpoint does not read it again; after a restore to an earlier position the reader
     * hands over the same record, with the same position and bytes, again (rule SRC-1).
     *
     * <p>What happens is the job's choice, never the reader's (rule SRC-6): by default the call
     * throws and the reader lets the exception leave {@code pollNext}, which fails the job with the
     * position and the reason; where the job sends bad records to a dead-letter place, the runtime
     * writes the record there, exactly once with the job's checkpoints, and returns, and the reader
     * goes on with the next record. A reader never skips a record by itself.
     *
     * <p>The default throws, as a job without a dead-letter place does; test harnesses need not
     * override it.
     *
     * @param position where the record is, in words a user can find it by, also after a restore:
     *     "offset 17 of partition orders-0 (format json)", "byte offset 120 of file ... (format csv)"
     * @param record the record's bytes as read (a Kafka record's value, a file's line without its
     *     line break); not kept by the runtime after the call
     * @param reason the one-line reason, such as a {@code MalformedRecordException}'s message; it
     *     must not hold the record's content
     * @throws IOException "cannot read the record at {@code position}: {@code reason}", if the job
     *     fails on bad records
     */
    default void reject(String position, byte[] record, String reason) throws IOException {
        throw new IOException("cannot read the record at " + position + ": " + reason);
    }
}
