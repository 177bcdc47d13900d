package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.BestEffortSink;
import dev.onceflow.spi.sink.BestEffortWriter;
import dev.onceflow.spi.sink.SinkContext;

/**
 * The Kafka sink in {@link KafkaSinkMode#NONE} mode: records are sent and never waited for at a
 * barrier (BE-1), so what the producer buffers when the process dies is lost, and what is replayed
 * after a restore appears twice. A job that ends without a crash delivers everything: closing the
 * producer sends what is left.
 */
final class BestEffortKafkaSink implements BestEffortSink<Event> {

    private final KafkaSinkSettings settings;

    BestEffortKafkaSink(KafkaSinkSettings settings) {
        this.settings = settings;
    }

    @Override
    public BestEffortWriter<Event> createWriter(SinkContext context) {
        NonTransactionalProducer producer = new NonTransactionalProducer(settings);
        return new BestEffortWriter<>() {
            @Override
            public void write(Event record) {
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
