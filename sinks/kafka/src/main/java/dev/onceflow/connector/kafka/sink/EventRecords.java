package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Turns events into Kafka records: the value is the event's {@code id,key,count,payload} line in
 * UTF-8 (what the Kafka source reads back), the key is chosen by {@link RecordKey}, and the event
 * id may be copied into a header. Immutable.
 */
final class EventRecords {

    private final String topic;
    private final RecordKey key;
    private final String idHeader;

    /** @param idHeader header name for the event id, or {@code null} for no header */
    EventRecords(String topic, RecordKey key, String idHeader) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.key = Objects.requireNonNull(key, "key");
        this.idHeader = idHeader;
    }

    String topic() {
        return topic;
    }

    ProducerRecord<byte[], byte[]> toRecord(Event event) {
        byte[] keyBytes = switch (key) {
            case KEY -> event.key().getBytes(StandardCharsets.UTF_8);
            case ID -> event.id().getBytes(StandardCharsets.UTF_8);
            case NONE -> null;
        };
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, keyBytes,
                EventFormat.toLine(event).getBytes(StandardCharsets.UTF_8));
        if (idHeader != null) {
            record.headers().add(idHeader, event.id().getBytes(StandardCharsets.UTF_8));
        }
        return record;
    }
}
