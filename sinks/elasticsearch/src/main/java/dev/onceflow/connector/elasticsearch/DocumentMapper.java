package dev.onceflow.connector.elasticsearch;

import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import dev.onceflow.spi.record.Event;

/** Turns records into bulk actions: the index, the id, the action and its versioning. One per writer. */
final class DocumentMapper {

    /** Bytes of a bulk action line and of the document's field names, besides the values. */
    private static final int OVERHEAD_BYTES = 96;

    private final ElasticsearchSettings settings;
    private final IndexName index;

    DocumentMapper(ElasticsearchSettings settings) {
        this.settings = settings;
        this.index = IndexName.parse(settings.index().toString()); // its own date cache: one per thread
    }

    /** The action that writes {@code record}, held by the checkpoint taken at {@code checkpointMillis}. */
    PendingDocument document(Event record, long checkpointMillis) {
        String target = index.resolve(record, checkpointMillis);
        EventDocument body = EventDocument.of(record);
        int bytes = OVERHEAD_BYTES + target.length() + 2 * record.id().length() + record.key().length()
                + record.payload().length();
        return switch (settings.documentId()) {
            case ID -> settings.opType() == OpType.CREATE
                    ? new PendingDocument(record, target, record.id(), BulkOperation.of(b -> b.create(
                            c -> c.index(target).id(record.id()).document(body))), true, bytes)
                    : new PendingDocument(record, target, record.id(), BulkOperation.of(b -> b.index(
                            i -> i.index(target).id(record.id()).document(body))), false, bytes);
            // external_gte, not external: a replay of the same record rewrites the same content instead of
            // answering 409, and a record of an older count is refused (409), never applied.
            case KEY -> new PendingDocument(record, target, record.key(), BulkOperation.of(b -> b.index(
                    i -> i.index(target).id(record.key()).version(record.count()).versionType(VersionType.ExternalGte)
                            .document(body))), true, bytes + record.key().length());
            case AUTO -> new PendingDocument(record, target, null, BulkOperation.of(b -> b.index(
                    i -> i.index(target).document(body))), false, bytes);
        };
    }
}
