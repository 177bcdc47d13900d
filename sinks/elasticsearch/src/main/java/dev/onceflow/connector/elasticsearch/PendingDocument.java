package dev.onceflow.connector.elasticsearch;

import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;

/**
 * One bulk action and what it writes, kept until Elasticsearch acknowledged it, so a failure can
 * name the record and a retry can resend exactly the failed items.
 *
 * @param record how messages name the record: by its document id, never by its other values
 * @param index the target index
 * @param id the document id, {@code null} when Elasticsearch chooses it
 * @param operation the bulk action
 * @param conflictMeansWritten whether a {@code 409} answer means the document (or a newer one) is
 *     already there: true for {@code create} and versioned actions
 * @param estimatedBytes the action's approximate size in the request
 * @param source the document's JSON, for a dead letter
 */
record PendingDocument(String record, String index, String id, BulkOperation operation, boolean conflictMeansWritten,
        int estimatedBytes, byte[] source) {
}
