package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.IdempotentSink;
import dev.onceflow.spi.sink.IdempotentWriter;
import dev.onceflow.spi.sink.SinkContext;
import java.time.Duration;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * The Kafka sink in {@link KafkaSinkMode#AT_LEAST_ONCE} and {@link KafkaSinkMode#NONE} modes: an
 * idempotent producer (no duplicates from the producer's own retries) without transactions.
 * At-least-once flushes at every barrier, so a completed checkpoint never covers records still in
 * the producer's buffer; records written after the last checkpoint are written again after a
 * crash. None never waits: what is buffered at a crash is lost.
 *
 * <p>Kafka records are appended, not upserted, so the runtime's idempotent-sink driver gives
 * at-least-once here, not exactly-once: a replay appends duplicates.
 */
final class NonTransactionalKafkaSink implements IdempotentSink<Event> {

    private final KafkaSinkSettings settings;
    private final boolean flushAtBarrier;

    NonTransactionalKafkaSink(KafkaSinkSettings settings, boolean flushAtBarrier) {
        this.settings = settings;
        this.flushAtBarrier = flushAtBarrier;
    }

    @Override
    public IdempotentWriter<Event> createWriter(SinkContext context) {
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings.producer().idempotentProducer());
        SendErrors errors = new SendErrors();
        String topic = settings.records().topic();
        return new IdempotentWriter<>() {
            @Override
            public void write(Event record) {
                errors.check(topic);
                producer.send(settings.records().toRecord(record), errors);
            }

            @Override
            public void flush() {
                if (flushAtBarrier) {
                    producer.flush();
                }
                errors.check(topic);
            }

            @Override
            public void close() {
                producer.close(Duration.ofSeconds(30));
            }
        };
    }

    @Override
    public String toString() {
        return "kafka sink (" + (flushAtBarrier ? "at-least-once" : "none") + ") " + settings;
    }
}
