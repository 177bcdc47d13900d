package dev.onceflow.spi.source;

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
}
