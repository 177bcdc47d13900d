package dev.onceflow.connector.elasticsearch;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventSerializer;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.GenericWriteAheadSink;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.WriteAheadWriter;

/**
 * Keeps the records of checkpoint n in the checkpoint (the write-ahead log) and bulk-indexes them
 * once n completes; then {@link ElasticsearchCheckpointCommitter} writes n's marker, so a replay
 * skips the segment. Elasticsearch has no transaction spanning the documents and the marker, so a
 * crash between the two sends the segment again (WAL-1): with deterministic ids that rewrites the
 * same documents and the result is exactly-once; with {@link DocumentId#AUTO} ids it is
 * at-least-once. Documents become visible only for completed checkpoints, and date placeholders
 * in the index name take the checkpoint's time, so a replay writes to the same index.
 */
public final class ElasticsearchWriteAheadSink implements GenericWriteAheadSink<Event> {

    private final ElasticsearchSettings settings;

    ElasticsearchWriteAheadSink(ElasticsearchSettings settings) {
        this.settings = settings;
    }

    @Override
    public WriteAheadWriter<Event> createWriter(SinkContext context) throws Exception {
        return new Writer(BulkWriter.forSubtask(settings, context), new DocumentMapper(settings));
    }

    @Override
    public CheckpointCommitter createCommitter(SinkContext context) throws Exception {
        return new ElasticsearchCheckpointCommitter(context, settings.openClient(), settings);
    }

    @Override
    public SimpleVersionedSerializer<Event> recordSerializer() {
        return EventSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "ElasticsearchWriteAheadSink[write-ahead, committerIndex=" + settings.committerIndex() + ", "
                + settings + "]";
    }

    private static final class Writer implements WriteAheadWriter<Event> {

        private final BulkWriter bulk;
        private final DocumentMapper documents;

        Writer(BulkWriter bulk, DocumentMapper documents) {
            this.bulk = bulk;
            this.documents = documents;
        }

        /** Returns only when every document of the segment is acknowledged; throws if one cannot be. */
        @Override
        public boolean sendValues(Iterable<Event> values, long checkpointId, long timestamp) throws Exception {
            for (Event record : values) {
                bulk.add(documents.document(record, timestamp));
            }
            bulk.flush();
            return true;
        }

        @Override
        public void close() throws Exception {
            bulk.close();
        }
    }
}
