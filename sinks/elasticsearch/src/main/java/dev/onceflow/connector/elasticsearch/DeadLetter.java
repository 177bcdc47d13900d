package dev.onceflow.connector.elasticsearch;

import co.elastic.clients.elasticsearch._types.ErrorCause;

/**
 * A document Elasticsearch rejected, as written to the dead-letter index: the record's fields,
 * where it was going and why it was refused.
 */
record DeadLetter(String recordId, String key, String payload, long count, String index, String documentId,
        String errorType, String reason) {

    static DeadLetter of(PendingDocument document, ErrorCause error) {
        return new DeadLetter(document.record().id(), document.record().key(), document.record().payload(),
                document.record().count(), document.index(), document.id(), error.type(), error.reason());
    }
}
