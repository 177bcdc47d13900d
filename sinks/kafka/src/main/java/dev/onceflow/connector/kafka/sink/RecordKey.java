package dev.onceflow.connector.kafka.sink;

/** What becomes the Kafka record's key, and so (with the default partitioner) its partition. */
public enum RecordKey {
    /** The event's key: all events of one key go to one partition, in order. */
    KEY,
    /** The event's id. */
    ID,
    /** No key: the partitioner spreads records (sticky batches). */
    NONE
}
