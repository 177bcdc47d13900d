package dev.onceflow.conformance.kafka;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Change events of a table {@code orders (id, customer, amount, updated_at)} as Debezium's
 * PostgreSQL connector writes them with decimal.handling.mode=string, sent by a plain
 * kafka-clients producer: key = the primary key, a tombstone after each delete. The oracle of the
 * tests that read them as a changelog.
 */
final class DebeziumOrderChanges {

    static final int KEYS = 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    private DebeziumOrderChanges() {
    }

    /**
     * Writes {@code events} changes of {@link #KEYS} keys to {@code topic}: snapshot reads,
     * creates, updates with the old row (REPLICA IDENTITY FULL) or without (DEFAULT), deletes with
     * the old row or only its key, each delete followed by a tombstone. Returns each key's final
     * values by field name; a deleted key is absent.
     */
    static Map<Long, Map<String, Object>> produce(String bootstrapServers, String topic, int events) throws Exception {
        Random random = new Random(20261207L);
        Map<Long, Map<String, Object>> current = new HashMap<>();
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        try (KafkaProducer<String, String> producer = producer(bootstrapServers)) {
            for (int i = 0; i < events; i++) {
                long id = random.nextInt(KEYS);
                String key = "{\"id\":" + id + "}";
                Map<String, Object> old = current.get(id);
                if (old == null) {
                    Map<String, Object> after = values(id, i);
                    sends.add(producer.send(new ProducerRecord<>(topic, key, event(null, after, i < KEYS ? "r" : "c"))));
                    current.put(id, after);
                } else if (random.nextInt(10) < 7) {
                    Map<String, Object> after = values(id, i);
                    Map<String, Object> before = random.nextBoolean() ? old : null;
                    sends.add(producer.send(new ProducerRecord<>(topic, key, event(before, after, "u"))));
                    current.put(id, after);
                } else {
                    Map<String, Object> before = random.nextBoolean() ? old : keyOnly(id);
                    sends.add(producer.send(new ProducerRecord<>(topic, key, event(before, null, "d"))));
                    sends.add(producer.send(new ProducerRecord<>(topic, key, null)));
                    current.remove(id);
                }
            }
            for (Future<RecordMetadata> send : sends) {
                send.get();
            }
        }
        return new TreeMap<>(current);
    }

    /** A key's final values as the tests compare them: customer, amount as a decimal, updated_at as an instant. */
    static List<Object> typed(Map<String, Object> values) {
        return Arrays.asList(values.get("customer"), new BigDecimal(values.get("amount").toString()),
                Instant.parse(values.get("updated_at").toString()));
    }

    /** The row of key {@code id} after change number {@code change}, with a column the jobs' schemas leave out. */
    static Map<String, Object> values(long id, int change) {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("id", id);
        values.put("customer", "customer " + id + (change % 3 == 0 ? " Zoë 日本 \"quoted\"" : "") + " v" + change);
        values.put("amount", BigDecimal.valueOf(change * 7919L % 100_000, 2).toPlainString());
        values.put("updated_at", Instant.parse("2026-12-06T08:00:00.123456Z").plusSeconds(change * 61L).toString());
        values.put("column_not_in_the_schema", change);
        return values;
    }

    /** REPLICA IDENTITY DEFAULT: a delete's old row holds only the key. */
    private static Map<String, Object> keyOnly(long id) {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("id", id);
        values.put("customer", null);
        values.put("amount", null);
        values.put("updated_at", null);
        return values;
    }

    static String event(Map<String, Object> before, Map<String, Object> after, String op) throws IOException {
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("before", before);
        event.put("after", after);
        event.put("source", Map.of("connector", "postgresql", "db", "shop", "schema", "public", "table", "orders"));
        event.put("op", op);
        event.put("ts_ms", 1_796_544_000_000L);
        event.put("transaction", null);
        return JSON.writeValueAsString(event);
    }

    static KafkaProducer<String, String> producer(String bootstrapServers) {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()));
    }

    /**
     * The job file's source reading these changes from {@code topic}, with a throttle (500 rows a
     * second per subtask, about 3 s of input at parallelism 2) so that a halt comes with most of
     * the input unread; lines at column 0, ending in a newline.
     */
    static String sourceAndThrottle(String bootstrapServers, String topic) {
        return """
                source:
                  type: kafka
                  options:
                    bootstrap-servers: '%s'
                    topics: %s
                    bounded: true
                  format: debezium-json
                  schema:
                    fields:
                      id: long not null
                      customer: string
                      amount: decimal(10, 2)
                      updated_at: timestamptz
                    primary-key: [id]
                steps:
                  - {type: throttle, options: {rows-per-second: 500}}
                """.formatted(bootstrapServers, topic);
    }
}
