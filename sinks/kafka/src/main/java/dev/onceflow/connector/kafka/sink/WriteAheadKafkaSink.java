package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventSerializer;
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
final class WriteAheadKafkaSink implements GenericWriteAheadSink<Event> {

    private final KafkaSinkSettings settings;

    WriteAheadKafkaSink(KafkaSinkSettings settings) {
        this.settings = settings;
    }

    @Override
    public WriteAheadWriter<Event> createWriter(SinkContext context) {
        return new WriteAheadKafkaWriter(settings, context);
    }

    @Override
    public CheckpointCommitter createCommitter(SinkContext context) {
        return new ControlTopicCommitter(settings, context);
    }

    @Override
    public SimpleVersionedSerializer<Event> recordSerializer() {
        return EventSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "kafka sink (write-ahead) " + settings;
    }
}
