package dev.onceflow.connector.jdbc;

/** What the sink does with a row in the exactly-once and write-ahead modes (CHG-3, CHG-4). */
public enum WriteMode {

    /** Every row is appended; a row that is not an insert fails the job naming the sink. */
    INSERT,

    /**
     * Rows are applied by primary key: inserts and updates upserted, deletes deleted, the
     * before-image of an update ignored. Needs a primary key.
     */
    UPSERT
}
