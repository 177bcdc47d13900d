package dev.onceflow.connector.elasticsearch;

/** Where a document's {@code _id} comes from; deterministic ids are what make a replay harmless. */
public enum DocumentId {

    /** The record's id: one document per record; a replay rewrites the same document with the same content. */
    ID,

    /**
     * The record's key: one document per key holding its latest state. Written with external
     * versioning ({@code version_type=external_gte}, version = the record's count), so a replay of
     * an older record can never move the document back to older state.
     */
    KEY,

    /**
     * Ids chosen by Elasticsearch. A replay writes new documents: at-least-once. Refused in the
     * idempotent mode, which has nothing else to deduplicate with.
     */
    AUTO
}
