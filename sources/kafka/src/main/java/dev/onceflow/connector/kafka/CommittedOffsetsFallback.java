package dev.onceflow.connector.kafka;

/** With {@link StartingOffsets#COMMITTED}: where a partition without a committed offset starts. */
public enum CommittedOffsetsFallback {
    /** Its earliest offset. */
    EARLIEST,
    /** Its end offset (the last stable offset under {@code read_committed}). */
    LATEST,
    /** Fail the job's start, naming the partition. */
    FAIL
}
