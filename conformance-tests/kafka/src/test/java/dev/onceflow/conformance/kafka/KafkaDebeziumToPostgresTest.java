package dev.onceflow.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceflow.conformance.JobProcess;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import dev.onceflow.testing.postgres.EmbeddedPostgresServer;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user does with a job file only: Debezium-shaped change events of a table, written to a
 * topic by a plain kafka-clients producer (key = the primary key, a tombstone after each delete),
 * land in PostgreSQL by primary key, and the table ends as the events say, each key with its last
 * values and no deleted key present, though the first run dies mid-way and the second resumes
 * from its checkpoint (CHG-4, CHG-5, FMT-8).
 */
@Timeout(300)
class KafkaDebeziumToPostgresTest {

    private static final int KEYS = 20;
    private static final int EVENTS = 3_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private static EmbeddedKafkaBroker broker;
    private static EmbeddedPostgresServer postgres;

    @TempDir
    Path dir;

    @BeforeAll
    static void startServers() throws IOException {
        broker = EmbeddedKafkaBroker.start();
        postgres = EmbeddedPostgresServer.start(Map.of());
    }

    @AfterAll
    static void stopServers() throws IOException {
        if (broker != null) {
            broker.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void changesOfAPlainProducerLeaveEachKeyAsItsLastChangeThroughACrash() throws Exception {
        broker.createTopic("shop.public.orders", 3);
        Map<Long, List<Object>> expected = produceChanges("shop.public.orders");
        assertThat(expected).as("some keys end present").isNotEmpty().as("some keys end deleted")
                .hasSizeLessThan(KEYS);
        Path job = job("shop.public.orders", "mode: write-ahead\n    write-mode: upsert");

        JobProcess crashed = JobProcess.start(job, "latest",
                JobProcess.Faults.haltAt(FaultPoints.SOURCE_BEFORE_BARRIER + "@4"), dir.resolve("crash.log"));
        assertThat(crashed.await(3)).as("halted at the fault point; log:\n%s", crashed.tail())
                .isEqualTo(FaultPoints.HALT_EXIT_CODE);
        assertThat(table()).as("the crash came before the last change; log:\n%s", crashed.tail())
                .isNotEqualTo(expected);
        JobProcess resumed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("resume.log"));
        assertThat(resumed.await(3)).as("log:\n%s", resumed.tail()).isZero();

        assertThat(table()).as("each key as its last change left it, deleted keys absent").isEqualTo(expected);
    }

    /** A change event the format cannot apply fails the job by the source's on-error (fail), never skipped. */
    @Test
    void aTruncateEventFailsTheJobNamingItsOffset() throws Exception {
        broker.createTopic("shop.public.truncated", 1);
        try (KafkaProducer<String, String> producer = producer()) {
            producer.send(new ProducerRecord<>("shop.public.truncated", "{\"id\":1}", event(null, values(1, 0), "c")))
                    .get();
            producer.send(new ProducerRecord<>("shop.public.truncated", null, event(null, null, "t"))).get();
        }
        Path job = job("shop.public.truncated", "mode: write-ahead\n    write-mode: upsert");
        JobProcess run = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("truncated.log"));
        assertThat(run.await(3)).as("log:\n%s", run.tail()).isNotZero().isNotEqualTo(FaultPoints.HALT_EXIT_CODE);
        assertThat(Files.readString(dir.resolve("truncated.log"))).contains("offset 1 of partition shop.public.truncated-0")
                .contains("op 't' (a truncate) empties a whole table");
    }

    /** CHG-3: a changelog into a sink that appends is refused before the job runs, in one line, exit 2. */
    @Test
    void aChangelogIntoAnAppendingSinkIsRefusedBeforeTheJobRuns() throws Exception {
        Path job = job("shop.public.never-read", "mode: write-ahead");
        JobProcess run = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("refused.log"));
        assertThat(run.await(3)).as("log:\n%s", run.tail()).isEqualTo(2);
        assertThat(Files.readString(dir.resolve("refused.log"))).contains("sink 'jdbc' appends rows, and its input is "
                + "a changelog with updates and deletes; use a sink that writes by primary key");
    }

    /**
     * Writes {@link #EVENTS} changes of {@link #KEYS} keys as Debezium's PostgreSQL connector would
     * with decimal.handling.mode=string: snapshot reads, creates, updates with the old row (REPLICA
     * IDENTITY FULL) or without (DEFAULT), deletes with the old row or only its key, each delete
     * followed by a tombstone. Returns each key's final values; a deleted key is absent.
     */
    private Map<Long, List<Object>> produceChanges(String topic) throws Exception {
        Random random = new Random(20261207L);
        Map<Long, Map<String, Object>> current = new HashMap<>();
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        try (KafkaProducer<String, String> producer = producer()) {
            for (int i = 0; i < EVENTS; i++) {
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
        Map<Long, List<Object>> expected = new TreeMap<>();
        current.forEach((id, values) -> expected.put(id, Arrays.asList(values.get("customer"),
                new BigDecimal((String) values.get("amount")), Instant.parse((String) values.get("updated_at")))));
        return expected;
    }

    private static Map<String, Object> values(long id, int change) {
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

    private static String event(Map<String, Object> before, Map<String, Object> after, String op) throws IOException {
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("before", before);
        event.put("after", after);
        event.put("source", Map.of("connector", "postgresql", "db", "shop", "schema", "public", "table", "orders"));
        event.put("op", op);
        event.put("ts_ms", 1_796_544_000_000L);
        event.put("transaction", null);
        return JSON.writeValueAsString(event);
    }

    private static KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()));
    }

    /**
     * The user's job file. The throttle (500 rows a second per subtask, about 3 s of input) makes
     * the halt at the fourth barrier come with most of the input unread.
     */
    private Path job(String topic, String sinkMode) throws IOException {
        String table = topic.replace('.', '_').replace('-', '_');
        String yaml = """
                name: orders-mirror
                parallelism: 2
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
                sink:
                  type: jdbc
                  options:
                    url: '%s'
                    user: postgres
                    table: %s
                    %s
                checkpoints:
                  interval: 200ms
                  dir: '%s'
                """.formatted(broker.bootstrapServers(), topic, postgres.url(), table, sinkMode,
                dir.resolve("checkpoints-" + table));
        Path file = dir.resolve(table + ".yaml");
        Files.writeString(file, yaml);
        return file;
    }

    /** The mirror table, by id: customer, amount, updated_at. */
    private static Map<Long, List<Object>> table() throws SQLException {
        Map<Long, List<Object>> rows = new TreeMap<>();
        try (Connection connection = DriverManager.getConnection(postgres.url(), "postgres", "");
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT \"id\", \"customer\", \"amount\", \"updated_at\" "
                        + "FROM \"shop_public_orders\"")) {
            while (result.next()) {
                OffsetDateTime at = result.getObject(4, OffsetDateTime.class);
                assertThat(rows.put(result.getLong(1), Arrays.asList(result.getString(2), result.getBigDecimal(3),
                        at == null ? null : at.toInstant()))).as("a key twice").isNull();
            }
        }
        return rows;
    }
}
