package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.sink.BestEffortSink;
import dev.onceflow.spi.sink.BestEffortWriter;
import dev.onceflow.spi.sink.SinkContext;

/**
 * The Kafka sink in {@link KafkaSinkMode#NONE} mode: records are sent and never waited for at a
 * barrier (BE-1), so what the producer buffers when the process dies is lost, and what is replayed
 * after a restore appears twice. A job that ends without a crash delivers everything: closing the
 * producer sends what is left.
 */
final class BestEffortKafkaSink<T> implements BestEffortSink<T> {

    private final KafkaSinkSettings<T> settings;

    BestEffortKafkaSink(KafkaSinkSettings<T> settings) {
        this.settings = settings;
    }

    @Override
    public BestEffortWriter<T> createWriter(SinkContext context) {
        NonTransactionalProducer<T> producer = new NonTransactionalProducer<>(settings);
        return new BestEffortWriter<>() {
            @Override
            public void write(T record) {
                producer.send(record);
            }

            @Override
            public void close() {
                producer.close();
            }
        };
    }

    @Override
    public String toString() {
        return "kafka sink (none) " + settings;
    }
}
