package dev.onceflow.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceflow.conformance.CommittedFiles;
import dev.onceflow.conformance.JobProcess;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A topic of JSON orders with some records that are not orders, read by a job file with
 * {@code on-error: dead-letter} and a Kafka dead-letter topic (rule SRC-6): through a crash before a
 * commit and a resume, every order lands once in the files, and every bad record is once in the
 * dead-letter topic (read committed), with its partition and offset and its bytes as produced.
 */
@Timeout(300)
class KafkaDeadLetterTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOPIC = "orders-with-bad-ones";
    private static final String DEAD_LETTERS = "orders-dead-letters";
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

    @Test
    void badRecordsGoToTheDeadLetterTopicOnceThroughACrash() throws Exception {
        broker.createTopic(TOPIC, 3);
        broker.createTopic(DEAD_LETTERS, 1);
        Set<Long> goodIds = new HashSet<>();
        Map<String, byte[]> bad = new HashMap<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
            Map<Long, Future<RecordMetadata>> badSends = new HashMap<>();
            Map<Long, String> badValues = new HashMap<>();
            for (long id = 0; id < 3_000; id++) {
                String value = switch ((int) (id % 100)) {
                    case 13 -> "order " + id + ", not JSON";
                    case 57 -> "{\"order_id\": " + id + ", \"amount\": 1.5}";
                    case 91 -> "{\"order_id\": " + id + ", \"customer\": \"c\", \"amount\": 1.005}";
                    default -> "{\"order_id\": " + id + ", \"customer\": \"c-" + id % 7 + "\", \"amount\": 2.50}";
                };
                Future<RecordMetadata> sent = producer.send(new ProducerRecord<>(TOPIC, (int) (id % 3), null, value));
                if (id % 100 == 13 || id % 100 == 57 || id % 100 == 91) {
                    badSends.put(id, sent);
                    badValues.put(id, value);
                } else {
                    goodIds.add(id);
                }
            }
            for (Map.Entry<Long, Future<RecordMetadata>> send : badSends.entrySet()) {
                RecordMetadata where = send.getValue().get();
                bad.put("offset " + where.offset() + " of partition " + TOPIC + "-" + where.partition()
                        + " (format json)", badValues.get(send.getKey()).getBytes(StandardCharsets.UTF_8));
            }
        }
        Path job = job();

        JobProcess crashed = JobProcess.start(job, "latest",
                JobProcess.Faults.haltAt(FaultPoints.SOURCE_BEFORE_BARRIER + "@5"), dir.resolve("crash.log"));
        assertThat(crashed.await(3)).as("halted at the fault point; log:\n%s", crashed.tail()).isEqualTo(86);
        assertThat(committedDeadLetters()).as("the crash came before the last dead letter").hasSizeLessThan(bad.size());
        JobProcess resumed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("resume.log"));
        assertThat(resumed.await(3)).as("log:\n%s", resumed.tail()).isZero();

        Set<Long> landed = new HashSet<>();
        for (String line : CommittedFiles.lines(dir.resolve("output"))) {
            long id = JSON.readTree(line).get("order_id").asLong();
            assertThat(landed.add(id)).as("order %d twice", id).isTrue();
        }
        assertThat(landed).as("every good order once").isEqualTo(goodIds);

        List<JsonNode> letters = committedDeadLetters();
        Map<String, byte[]> read = new HashMap<>();
        for (JsonNode letter : letters) {
            String position = letter.get("position").asText();
            assertThat(read.put(position, Base64.getDecoder().decode(letter.get("record").asText())))
                    .as("dead letter %s twice", position).isNull();
            assertThat(letter.get("source").asText()).isEqualTo("orders-in");
        }
        assertThat(read.keySet()).as("every bad record once").isEqualTo(bad.keySet());
        bad.forEach((position, bytes) -> assertThat(read.get(position)).as("bytes at %s", position).isEqualTo(bytes));
        assertThat(letters).extracting(l -> l.get("reason").asText())
                .anyMatch(r -> r.startsWith("not valid JSON"))
                .anyMatch(r -> r.contains("'customer'"))
                .anyMatch(r -> r.contains("1.005 has more than 2 digits after the point"));
    }

    private Path job() throws java.io.IOException {
        String yaml = """
                name: kafka-dead-letters
                parallelism: 2
                source:
                  type: kafka
                  uid: orders-in
                  options: {bootstrap-servers: '%1$s', topics: %2$s, bounded: true}
                  format: json
                  schema:
                    fields:
                      order_id: long not null
                      customer: string not null
                      amount: decimal(10, 2) not null
                  on-error: dead-letter
                  dead-letter:
                    type: kafka
                    options: {bootstrap-servers: '%1$s', topic: %3$s}
                steps:
                  - {type: throttle, options: {rows-per-second: 1000}}
                sink:
                  type: filesystem
                  options: {path: '%4$s'}
                  format: json
                checkpoints:
                  interval: 200ms
                  dir: '%5$s'
                """.formatted(broker.bootstrapServers(), TOPIC, DEAD_LETTERS, dir.resolve("output"),
                dir.resolve("checkpoints"));
        Path file = dir.resolve("job.yaml");
        Files.writeString(file, yaml);
        return file;
    }

    /** Every committed record of the dead-letter topic: read up to the end a read-committed consumer sees. */
    private List<JsonNode> committedDeadLetters() throws java.io.IOException {
        List<JsonNode> letters = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(DEAD_LETTERS, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            while (consumer.position(partition) < end) {
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    letters.add(JSON.readTree(record.value()));
                }
            }
        }
        return letters;
    }
}
