package dev.onceflow.connector.kafka.sink;

import java.time.Duration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * One subtask's idempotent producer without transactions, as the {@link KafkaSinkMode#AT_LEAST_ONCE}
 * and {@link KafkaSinkMode#NONE} modes use it: the producer's own retries add no duplicates, but
 * Kafka records are appended, so a record replayed after a crash is a second record. Which of the
 * two modes it serves is only whether the runtime asks it to {@link #flush()} at the barrier.
 */
final class NonTransactionalProducer<T> implements AutoCloseable {

    private final KafkaSinkSettings<T> settings;
    private final KafkaRecords.Converter<T> converter;
    private final KafkaProducer<byte[], byte[]> producer;
    private final SendErrors errors = new SendErrors();

    NonTransactionalProducer(KafkaSinkSettings<T> settings) {
        this.settings = settings;
        this.converter = settings.records().converter();
        this.producer = new KafkaProducer<>(settings.producer().idempotentProducer());
    }

    /** Sends one record; fails if an earlier send failed. */
    void send(T record) {
        errors.check(settings.records().topic());
        ProducerRecord<byte[], byte[]> converted = converter.toRecord(record);
        if (converted != null) {
            producer.send(converted, errors);
        }
    }

    /** Waits until every record sent so far is acknowledged, and fails if one was not. */
    void flush() {
        producer.flush();
        errors.check(settings.records().topic());
    }

    /** Waits up to 30 s for what is buffered, then closes the producer. */
    @Override
    public void close() {
        producer.close(Duration.ofSeconds(30));
    }
}
