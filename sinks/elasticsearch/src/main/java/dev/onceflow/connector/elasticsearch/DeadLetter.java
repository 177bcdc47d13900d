package dev.onceflow.connector.elasticsearch;

import co.elastic.clients.elasticsearch._types.ErrorCause;
import java.nio.charset.StandardCharsets;

/**
 * A document Elasticsearch rejected, as written to the dead-letter index: where it was going, why
 * it was refused, and the document itself as JSON text (a string, so one dead-letter index takes
 * the documents of any job without mapping conflicts of its own).
 */
record DeadLetter(String record, String index, String documentId, String errorType, String reason, String document) {

    static DeadLetter of(PendingDocument document, ErrorCause error) {
        return new DeadLetter(document.record(), document.index(), document.id(), error.type(), error.reason(),
                new String(document.source(), StandardCharsets.UTF_8));
    }
}
