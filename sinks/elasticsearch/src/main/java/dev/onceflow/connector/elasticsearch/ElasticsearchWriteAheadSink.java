package dev.onceflow.connector.elasticsearch;

import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.GenericWriteAheadSink;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.WriteAheadWriter;
import java.util.function.Function;

/**
 * Keeps the records of checkpoint n in the checkpoint (the write-ahead log) and bulk-indexes them
 * once n completes; then {@link ElasticsearchCheckpointCommitter} writes n's marker, so a replay
 * skips the segment. Elasticsearch has no transaction spanning the documents and the marker, so a
 * crash between the two sends the segment again (WAL-1): with deterministic ids that rewrites the
 * same documents and the result is exactly-once; with {@link DocumentId#AUTO} ids it is
 * at-least-once. Documents become visible only for completed checkpoints, and date placeholders
 * in the index name take the checkpoint's time, so a replay writes to the same index.
 *
 * @param <T> the records: rows, or events
 */
public final class ElasticsearchWriteAheadSink<T> implements GenericWriteAheadSink<T> {

    private final ElasticsearchSettings settings;
    private final InputRecords<T> input;

    ElasticsearchWriteAheadSink(ElasticsearchSettings settings, InputRecords<T> input) {
        this.settings = settings;
        this.input = input;
    }

    @Override
    public WriteAheadWriter<T> createWriter(SinkContext context) throws Exception {
        return new Writer<>(BulkWriter.forSubtask(settings, context), new DocumentMapper(settings, input.fields()),
                input.toRow());
    }

    @Override
    public CheckpointCommitter createCommitter(SinkContext context) throws Exception {
        return new ElasticsearchCheckpointCommitter(context, settings.openClient(), settings);
    }

    @Override
    public SimpleVersionedSerializer<T> recordSerializer() {
        return input.serializer();
    }

    @Override
    public String toString() {
        return "ElasticsearchWriteAheadSink[write-ahead, committerIndex=" + settings.committerIndex() + ", "
                + settings + "]";
    }

    private static final class Writer<T> implements WriteAheadWriter<T> {

        private final BulkWriter bulk;
        private final DocumentMapper documents;
        private final Function<T, Row> toRow;

        Writer(BulkWriter bulk, DocumentMapper documents, Function<T, Row> toRow) {
            this.bulk = bulk;
            this.documents = documents;
            this.toRow = toRow;
        }

        /** Returns only when every document of the segment is acknowledged; throws if one cannot be. */
        @Override
        public boolean sendValues(Iterable<T> values, long checkpointId, long timestamp) throws Exception {
            for (T record : values) {
                bulk.add(documents.document(toRow.apply(record), timestamp));
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
