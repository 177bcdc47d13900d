package dev.onceflow.connector.elasticsearch;

import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.util.BinaryData;
import co.elastic.clients.util.ContentType;
import dev.onceflow.spi.row.Row;

/** Turns rows into bulk actions: the index, the id, the document, the action and its versioning. One per writer. */
final class DocumentMapper {

    /** Bytes of a bulk action line besides the index, the id and the document. */
    private static final int OVERHEAD_BYTES = 64;

    private final ElasticsearchSettings settings;
    private final DocumentFields fields;
    private final IndexName index;
    private final DocumentEncoder encoder = new DocumentEncoder();

    DocumentMapper(ElasticsearchSettings settings, DocumentFields fields) {
        this.settings = settings;
        this.fields = fields;
        this.index = IndexName.parse(settings.index().toString()); // its own date cache: one per thread
    }

    /** The action that writes {@code row}, held by the checkpoint taken at {@code checkpointMillis}. */
    PendingDocument document(Row row, long checkpointMillis) {
        String target = index.resolve(fields.key(row), checkpointMillis);
        String id = fields.id(row);
        byte[] source = encoder.encode(row);
        // The client writes BinaryData into the bulk body as it is: the bytes the encoder chose.
        BinaryData body = BinaryData.of(source, ContentType.APPLICATION_JSON);
        int bytes = OVERHEAD_BYTES + target.length() + (id == null ? 0 : id.length()) + source.length;
        return switch (settings.documentId()) {
            case ID -> settings.opType() == OpType.CREATE
                    ? new PendingDocument("record '" + id + "'", target, id, BulkOperation.of(b -> b.create(
                            c -> c.index(target).id(id).document(body))), true, bytes, source)
                    : new PendingDocument("record '" + id + "'", target, id, BulkOperation.of(b -> b.index(
                            i -> i.index(target).id(id).document(body))), false, bytes, source);
            // external_gte, not external: a replay of the same record rewrites the same content instead of
            // answering 409, and a record of an older count is refused (409), never applied.
            case KEY -> {
                long version = fields.version(row);
                yield new PendingDocument("record of key '" + id + "' (count " + version + ")", target, id,
                        BulkOperation.of(b -> b.index(i -> i.index(target).id(id).version(version)
                                .versionType(VersionType.ExternalGte).document(body))), true, bytes, source);
            }
            case AUTO -> new PendingDocument("a record (document-id: auto, no id)", target, null,
                    BulkOperation.of(b -> b.index(i -> i.index(target).document(body))), false, bytes, source);
        };
    }
}
