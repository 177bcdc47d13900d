package dev.onceflow.connector.jdbc;

/** How the JDBC sink delivers rows; the guarantees are in {@code docs/connectors/jdbc.md}. */
public enum JdbcMode {

    /**
     * One prepared transaction ({@code PREPARE TRANSACTION}) per subtask and checkpoint, committed
     * when the checkpoint completes. Exactly-once; needs {@code max_prepared_transactions}.
     */
    EXACTLY_ONCE,

    /**
     * Rows kept in the checkpoint and written after it completes, in one local transaction together
     * with a marker row in the committer table. Exactly-once without prepared transactions; rows
     * become visible one checkpoint later and the checkpoint holds them.
     */
    WRITE_AHEAD,

    /**
     * Upserts by id ({@code INSERT ... ON CONFLICT (id) DO UPDATE}) flushed at every barrier.
     * At-least-once delivery whose final table state is exactly-once; rows of a checkpoint that
     * later fails are visible until the replay rewrites them.
     */
    IDEMPOTENT
}
