package dev.onceflow.connector.kafka.sink;

/** What the sink writes for each row's kind (CHG-3, CHG-4). */
public enum KafkaWriteMode {

    /** Every row is a record; a row that is not an insert fails the job naming the sink. */
    APPEND,

    /**
     * Records keyed by the primary key, for a compacted topic: inserts and updates are the row as
     * the value, a delete a tombstone (no value) for its key, the before-image of an update none.
     */
    UPSERT
}
