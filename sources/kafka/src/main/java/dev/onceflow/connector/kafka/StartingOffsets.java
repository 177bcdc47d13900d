package dev.onceflow.connector.kafka;

/**
 * Where the partitions found when a job first starts are read from. Partitions found later (new
 * partitions, new topics matching a pattern) are always read from their earliest offset, because
 * every record in them was written after the job started. Whatever the choice, the enumerator
 * turns it into a concrete offset per partition before the split exists.
 */
public enum StartingOffsets {
    /** The log start offset: everything the broker still has. */
    EARLIEST,
    /**
     * The end offset when the job first starts (under {@code read_committed}, the last stable
     * offset): only records written after that.
     */
    LATEST,
    /** The first offset whose record timestamp is at or after {@code starting-timestamp}; the end if none. */
    TIMESTAMP,
    /** The consumer group's committed offset ({@code group-id}); partitions without one use the fallback. */
    COMMITTED
}
