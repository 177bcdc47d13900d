package dev.onceflow.connector.elasticsearch;

/**
 * What happens to a document Elasticsearch rejects for its content (a mapping error, an invalid
 * index name: any 4xx other than a version conflict). Such a document is never dropped silently.
 */
public enum OnRejected {

    /** Fail the job, naming the record id, the index and Elasticsearch's reason. */
    FAIL,

    /**
     * Write the record, its target index and the reason to the dead-letter index (one document per
     * rejected document, with a deterministic id, so replays do not repeat it) and go on.
     */
    DEAD_LETTER
}
