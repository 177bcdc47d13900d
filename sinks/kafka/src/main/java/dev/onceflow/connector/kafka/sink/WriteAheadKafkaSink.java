package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.GenericWriteAheadSink;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.WriteAheadWriter;

/**
 * The Kafka sink in {@link KafkaSinkMode#WRITE_AHEAD} mode: a checkpoint's records are written
 * after it completes, in one Kafka transaction together with a marker in the control topic, so
 * data and marker commit atomically (WAL-3) and a replay skips what was written.
 */
final class WriteAheadKafkaSink<T> implements GenericWriteAheadSink<T> {

    private final KafkaSinkSettings<T> settings;

    WriteAheadKafkaSink(KafkaSinkSettings<T> settings) {
        this.settings = settings;
    }

    @Override
    public WriteAheadWriter<T> createWriter(SinkContext context) {
        return new WriteAheadKafkaWriter<>(settings, context);
    }

    @Override
    public CheckpointCommitter createCommitter(SinkContext context) {
        return new ControlTopicCommitter(settings, context);
    }

    @Override
    public SimpleVersionedSerializer<T> recordSerializer() {
        return settings.records().serializer();
    }

    @Override
    public String toString() {
        return "kafka sink (write-ahead) " + settings;
    }
}
