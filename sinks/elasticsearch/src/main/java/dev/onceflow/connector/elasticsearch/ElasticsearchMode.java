package dev.onceflow.connector.elasticsearch;

/** How the Elasticsearch sink delivers documents; the guarantees are in {@code docs/connectors/elasticsearch.md}. */
public enum ElasticsearchMode {

    /**
     * Bulk requests with a deterministic document id per record, flushed at every barrier, so a
     * checkpoint completes only when every bulk item before its barrier is acknowledged
     * (IDEM-1, IDEM-2). At-least-once delivery whose final index state is exactly-once; documents
     * of a checkpoint that later fails are visible until the replay rewrites them.
     */
    IDEMPOTENT,

    /**
     * Records kept in the checkpoint and bulk-indexed after it completes; a marker document per
     * (job, sink, subtask, checkpoint) in the committer index lets a replay skip what was sent.
     * Documents become visible only for completed checkpoints. Sending and marking are two
     * requests, so a crash between them sends the segment again: exactly-once needs deterministic
     * ids ({@code document-id: id} or {@code key}); with {@code auto} ids it is at-least-once.
     */
    WRITE_AHEAD
}
