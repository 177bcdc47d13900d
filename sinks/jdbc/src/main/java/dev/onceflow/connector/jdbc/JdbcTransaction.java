package dev.onceflow.connector.jdbc;

import java.util.Objects;

/**
 * The handle of one subtask's transaction for one checkpoint: the global id it is (or will be)
 * prepared under, and how many rows pre-commit prepared. Everything a later process needs to
 * commit or roll it back.
 *
 * @param gid the prepared-transaction id (PostgreSQL gid, MariaDB gtrid), {@code SinkContext#transactionId(subtask, checkpointId)}
 * @param rows rows prepared; 0 while open, and 0 after pre-committing an empty transaction, which
 *     prepared nothing and has nothing to commit
 */
public record JdbcTransaction(String gid, long rows) {

    public JdbcTransaction {
        Objects.requireNonNull(gid, "gid");
        if (rows < 0) {
            throw new IllegalArgumentException("negative row count " + rows + " of " + gid);
        }
    }

    /** This handle with the number of rows pre-commit prepared. */
    JdbcTransaction withRows(long preparedRows) {
        return new JdbcTransaction(gid, preparedRows);
    }
}
