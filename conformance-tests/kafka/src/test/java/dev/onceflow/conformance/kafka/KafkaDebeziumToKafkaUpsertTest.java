package dev.onceflow.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceflow.conformance.JobProcess;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a user does with a job file only: Debezium change events of a table, written by a plain
 * producer, go through a job into a compacted topic with the Kafka sink's {@code write-mode:
 * upsert}, in each of its modes; a read_committed reader that keeps the last value of each key and forgets
 * a key at its tombstone ends with the table as the events say, though the first run dies mid-way
 * and the second resumes from its checkpoint (CHG-4, CHG-5, FMT-8).
 */
@Timeout(300)
class KafkaDebeziumToKafkaUpsertTest {

    private static final int EVENTS = 3_000;
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private static EmbeddedKafkaBroker broker;

    @TempDir
    Path dir;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.start();
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    /**
     * In each mode of the sink, the fault point is where that mode's crash hurts most: before
     * a pre-committed transaction's commit, in the middle of a write-ahead send, or after records
     * were flushed past the last checkpoint (at-least-once writes them again; folded, harmless).
     */
    @ParameterizedTest(name = "{0} halted at {1}")
    @CsvSource({"exactly-once, sink.before-commit@4", "write-ahead, sink.wal-mid-send@3",
            "at-least-once, source.before-barrier@6"})
    void required_chg4_aChangelogIntoACompactedTopicLeavesEachKeyAsItsLastChangeThroughACrash(String mode,
            String haltAt) throws Exception {
        String from = "shop.public.orders-" + mode;
        String to = "orders-by-id-" + mode;
        broker.createTopic(from, 3);
        createCompactedTopic(to, 3);
        Map<Long, List<Object>> expected = new TreeMap<>();
        DebeziumOrderChanges.produce(broker.bootstrapServers(), from, EVENTS)
                .forEach((id, values) -> expected.put(id, DebeziumOrderChanges.typed(values)));
        assertThat(expected).as("some keys end present").isNotEmpty().as("some keys end deleted")
                .hasSizeLessThan(DebeziumOrderChanges.KEYS);
        Path job = job(from, to, "json", mode);

        JobProcess crashed = JobProcess.start(job, "latest", JobProcess.Faults.haltAt(haltAt),
                dir.resolve("crash.log"));
        assertThat(crashed.await(3)).as("halted at the fault point; log:\n%s", crashed.tail())
                .isEqualTo(FaultPoints.HALT_EXIT_CODE);
        assertThat(folded(to)).as("the crash came before the last change; log:\n%s", crashed.tail())
                .isNotEqualTo(expected);
        JobProcess resumed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("resume.log"));
        assertThat(resumed.await(3)).as("log:\n%s", resumed.tail()).isZero();

        assertThat(folded(to)).as("each key's last value as its last change left it, deleted keys "
                + "tombstoned").isEqualTo(expected);
    }

    /** A changelog format writes change events itself; upsert writes rows. Refused before the job runs, exit 2. */
    @Test
    void upsertIntoAChangelogFormatIsRefusedBeforeTheJobRuns() throws Exception {
        Path job = job("shop.public.never-read", "never-written", "debezium-json", "exactly-once");
        JobProcess run = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("refused.log"));
        assertThat(run.await(3)).as("log:\n%s", run.tail()).isEqualTo(2);
        assertThat(Files.readString(dir.resolve("refused.log"))).contains("sink 'kafka': write-mode upsert writes "
                + "each row's content as the record value, and format 'debezium-json' writes change events; use a "
                + "format such as json, or write-mode append");
    }

    private static void createCompactedTopic(String topic, int partitions) throws Exception {
        try (Admin admin = broker.admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)
                    .configs(Map.of("cleanup.policy", "compact")))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** The user's job file: the changes read and throttled as {@link DebeziumOrderChanges} says, then the sink. */
    private Path job(String from, String to, String sinkFormat, String mode) throws IOException {
        String yaml = """
                name: orders-by-id
                parallelism: 2
                %2$ssink:
                  type: kafka
                  options:
                    bootstrap-servers: '%1$s'
                    topic: %3$s
                    mode: %5$s
                    write-mode: upsert
                  format: %4$s
                checkpoints:
                  interval: 200ms
                  dir: '%6$s'
                """.formatted(broker.bootstrapServers(), DebeziumOrderChanges.sourceAndThrottle(broker.bootstrapServers(),
                from), to, sinkFormat, mode, dir.resolve("checkpoints-" + to));
        Path file = dir.resolve(to + ".yaml");
        Files.writeString(file, yaml);
        return file;
    }

    /**
     * What a reader of the compacted topic keeps: read_committed up to the end, the last value of
     * each key (customer, amount, updated_at), a key gone at its tombstone.
     */
    private static Map<Long, List<Object>> folded(String topic) throws IOException {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> partitions = IntStream.range(0, 3).mapToObj(p -> new TopicPartition(topic, p))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                assertThat(System.nanoTime()).as("read %s up to %s", topic, ends).isLessThan(deadline);
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
        }
        Map<Long, List<Object>> state = new TreeMap<>();
        for (ConsumerRecord<String, String> record : records) {
            long id = Long.parseLong(record.key());
            if (record.value() == null) {
                state.remove(id);
                continue;
            }
            JsonNode row = JSON.readTree(record.value());
            assertThat(row.get("id").asLong()).as("the key is the row's primary key").isEqualTo(id);
            state.put(id, Arrays.asList(row.get("customer").isNull() ? null : row.get("customer").asText(),
                    // Jackson drops trailing zeros; decimal(10, 2) has two, so no rounding can hide a wrong value
                    row.get("amount").isNull() ? null : row.get("amount").decimalValue().setScale(2),
                    row.get("updated_at").isNull() ? null : Instant.parse(row.get("updated_at").asText())));
        }
        return state;
    }
}
