package dev.onceflow.connector.elasticsearch;

/** The bulk action used for documents keyed by record id. */
public enum OpType {

    /** {@code index}: creates or overwrites; a replay rewrites the same content. */
    INDEX,

    /**
     * {@code create}: for insert-only streams. A replay's {@code 409 version_conflict} means the
     * document is already there and counts as written, not as an error; existing documents are
     * never rewritten, which saves the replay's indexing work.
     */
    CREATE
}
