package dev.onceflow.connector.kafka.sink;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Keeps the first error of a producer's asynchronous sends, so the task thread can fail the job
 * with it at the next write or flush instead of losing it in a callback; and where the first
 * acknowledged record since {@link #reset()} was written.
 */
final class SendErrors implements Callback {

    private volatile Exception first;
    private volatile RecordMetadata firstWritten;

    @Override
    public void onCompletion(RecordMetadata metadata, Exception exception) {
        if (exception != null) {
            if (first == null) {
                first = exception;
            }
        } else if (firstWritten == null) {
            firstWritten = metadata;
        }
    }

    /** Forgets the first written record (not the first error: a producer that failed stays failed). */
    void reset() {
        firstWritten = null;
    }

    /** Where the first record acknowledged since {@link #reset()} was written, or {@code null}. */
    KafkaTransaction.RecordPosition firstWritten() {
        RecordMetadata m = firstWritten;
        return m == null ? null : new KafkaTransaction.RecordPosition(m.topic(), m.partition(), m.offset());
    }

    /** @throws IllegalStateException with the first send error, naming {@code where} */
    void check(String where) {
        Exception error = first;
        if (error != null) {
            throw new IllegalStateException("a record sent to " + where + " failed: " + error, error);
        }
    }
}
