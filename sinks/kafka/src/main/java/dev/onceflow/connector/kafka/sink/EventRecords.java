package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.spi.record.EventSerializer;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Turns events into Kafka records: the value is the event's {@code id,key,count,payload} line in
 * UTF-8 (what the Kafka source reads back), the key is chosen by {@link RecordKey}, and the event
 * id may be copied into a header. The topic is fixed, or a template in which {@code {key}} stands
 * for the event's key (a topic per key, such as one per tenant). Immutable.
 */
final class EventRecords implements KafkaRecords<Event>, KafkaRecords.Converter<Event> {

    /** The placeholder a topic template replaces with the event's key. */
    static final String KEY_PLACEHOLDER = "{key}";
    private static final Pattern LEGAL_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    private final String topic;
    private final RecordKey key;
    private final String idHeader;

    /** @param idHeader header name for the event id, or {@code null} for no header */
    EventRecords(String topic, RecordKey key, String idHeader) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.key = Objects.requireNonNull(key, "key");
        this.idHeader = idHeader;
    }

    @Override
    public String topic() {
        return topic;
    }

    /**
     * The topic {@code event} goes to.
     *
     * @throws IllegalArgumentException naming the record when its key makes an illegal topic name
     *     (never dropped silently)
     */
    String topicFor(Event event) {
        if (!topic.contains(KEY_PLACEHOLDER)) {
            return topic;
        }
        String name = topic.replace(KEY_PLACEHOLDER, event.key());
        if (!LEGAL_TOPIC.matcher(name).matches() || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("record " + event.id() + " has key '" + event.key() + "', which makes '"
                    + name + "' from the topic template " + topic + ": not a legal Kafka topic name (1-249 of "
                    + "a-z A-Z 0-9 . _ -)");
        }
        return name;
    }

    /** Immutable, so one converter serves every writer. */
    @Override
    public Converter<Event> converter() {
        return this;
    }

    @Override
    public SimpleVersionedSerializer<Event> serializer() {
        return EventSerializer.INSTANCE;
    }

    @Override
    public ProducerRecord<byte[], byte[]> toRecord(Event event) {
        byte[] keyBytes = switch (key) {
            case KEY -> event.key().getBytes(StandardCharsets.UTF_8);
            case ID -> event.id().getBytes(StandardCharsets.UTF_8);
            case NONE -> null;
        };
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topicFor(event), keyBytes,
                EventFormat.toLine(event).getBytes(StandardCharsets.UTF_8));
        if (idHeader != null) {
            record.headers().add(idHeader, event.id().getBytes(StandardCharsets.UTF_8));
        }
        return record;
    }
}
