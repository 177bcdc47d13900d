package dev.onceflow.connector.jdbc;

/** How rows are sent to PostgreSQL inside a transaction. */
public enum WriteMethod {

    /** {@code COPY ... FROM STDIN} through pgjdbc's {@code CopyManager}: the fastest (FACTS: ~5x INSERT). */
    COPY,

    /** Batched {@code INSERT} statements, rewritten into multi-row inserts by the driver. */
    INSERT
}
