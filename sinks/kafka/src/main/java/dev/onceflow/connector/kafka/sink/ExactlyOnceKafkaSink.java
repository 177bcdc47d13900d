package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;

/**
 * The Kafka sink in {@link KafkaSinkMode#EXACTLY_ONCE} mode: a Kafka transaction per checkpoint
 * and subtask. See {@link ExactlyOnceKafkaWriter} for how transactions survive a crash.
 */
final class ExactlyOnceKafkaSink<T> implements TwoPhaseCommitSink<T, KafkaTransaction> {

    private final KafkaSinkSettings<T> settings;

    ExactlyOnceKafkaSink(KafkaSinkSettings<T> settings) {
        this.settings = settings;
    }

    @Override
    public TransactionalWriter<T, KafkaTransaction> createWriter(SinkContext context) {
        return new ExactlyOnceKafkaWriter<>(settings, context, ProducerInternals.load());
    }

    @Override
    public SimpleVersionedSerializer<KafkaTransaction> transactionSerializer() {
        return KafkaTransactionSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "kafka sink (exactly-once) " + settings;
    }
}
