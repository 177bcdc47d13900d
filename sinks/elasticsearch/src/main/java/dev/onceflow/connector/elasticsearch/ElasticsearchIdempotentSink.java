package dev.onceflow.connector.elasticsearch;

import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.sink.IdempotentSink;
import dev.onceflow.spi.sink.IdempotentWriter;
import dev.onceflow.spi.sink.SinkContext;
import java.util.function.Function;

/**
 * Bulk-indexes documents with deterministic ids as records arrive and flushes at every barrier, so
 * a checkpoint completes only when every document before its barrier is acknowledged (IDEM-2). A
 * replay after a crash rewrites the same documents (IDEM-1): at-least-once delivery, exactly-once
 * final index state. Documents of a checkpoint that later fails stay visible until the replay
 * rewrites them; readers that must see only checkpointed data use the write-ahead mode.
 *
 * @param <T> the records: rows, or events
 */
public final class ElasticsearchIdempotentSink<T> implements IdempotentSink<T> {

    private final ElasticsearchSettings settings;
    private final InputRecords<T> input;

    ElasticsearchIdempotentSink(ElasticsearchSettings settings, InputRecords<T> input) {
        this.settings = settings;
        this.input = input;
    }

    @Override
    public IdempotentWriter<T> createWriter(SinkContext context) throws Exception {
        return new Writer<>(BulkWriter.forSubtask(settings, context), new DocumentMapper(settings, input.fields()),
                input.toRow());
    }

    @Override
    public String toString() {
        return "ElasticsearchIdempotentSink[idempotent, " + settings + "]";
    }

    private static final class Writer<T> implements IdempotentWriter<T> {

        private final BulkWriter bulk;
        private final DocumentMapper documents;
        private final Function<T, Row> toRow;

        Writer(BulkWriter bulk, DocumentMapper documents, Function<T, Row> toRow) {
            this.bulk = bulk;
            this.documents = documents;
            this.toRow = toRow;
        }

        @Override
        public void write(T record) throws Exception {
            bulk.add(documents.document(toRow.apply(record), 0L)); // no date placeholders in this mode: the time is unused
        }

        @Override
        public void flush() throws Exception {
            bulk.flush();
        }

        @Override
        public void close() throws Exception {
            bulk.close();
        }
    }
}
