package dev.onceflow.connector.jdbc;

/** Whether the sink creates its table. */
public enum CreateTable {
    /** Creates the table from the records' fields when it does not exist; an existing table is used as it is. */
    IF_MISSING,
    /** Never creates it: the table must exist, with a column for every field. */
    NEVER
}
