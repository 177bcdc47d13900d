package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.sink.AtLeastOnceSink;
import dev.onceflow.spi.sink.AtLeastOnceWriter;
import dev.onceflow.spi.sink.SinkContext;

/**
 * The Kafka sink in {@link KafkaSinkMode#AT_LEAST_ONCE} mode: the producer is flushed at every
 * barrier, so a completed checkpoint never covers a record still in its buffer (ALO-1). Records
 * written after the last completed checkpoint are written again after a crash and appear twice
 * (ALO-2): Kafka appends, so this is not an {@code IdempotentSink}.
 */
final class AtLeastOnceKafkaSink<T> implements AtLeastOnceSink<T> {

    private final KafkaSinkSettings<T> settings;

    AtLeastOnceKafkaSink(KafkaSinkSettings<T> settings) {
        this.settings = settings;
    }

    @Override
    public AtLeastOnceWriter<T> createWriter(SinkContext context) {
        NonTransactionalProducer<T> producer = new NonTransactionalProducer<>(settings);
        return new AtLeastOnceWriter<>() {
            @Override
            public void write(T record) {
                producer.send(record);
            }

            @Override
            public void flush() {
                producer.flush();
            }

            @Override
            public void close() {
                producer.close();
            }
        };
    }

    @Override
    public String toString() {
        return "kafka sink (at-least-once) " + settings;
    }
}
