package dev.onceflow.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceflow.conformance.CommittedFiles;
import dev.onceflow.conformance.JobProcess;
import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * JSON records written to a topic by a plain kafka-clients producer, not by Onceflow, read by a job
 * file in the json format with their place in Kafka as fields: each record lands once in the
 * committed files, with its values and the partition and offset the producer was told.
 */
@Timeout(300)
class KafkaJsonRowsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
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

    private KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()));
    }

    private Path job(String topic) throws IOException {
        String yaml = """
                name: kafka-json
                parallelism: 2
                source:
                  type: kafka
                  options:
                    bootstrap-servers: '%s'
                    topics: %s
                    bounded: true
                    metadata-fields: topic, partition, offset
                  format: json
                  schema:
                    fields:
                      order_id: long not null
                      customer: string not null
                      amount: decimal(10, 2) not null
                      tags: array<string>
                steps:
                  - {type: count-by-key, uid: count, options: {key: customer, count: n}}
                sink:
                  type: filesystem
                  options: {path: '%s'}
                  format: json
                checkpoints:
                  interval: 200ms
                  dir: '%s'
                """.formatted(broker.bootstrapServers(), topic, dir.resolve("output"), dir.resolve("checkpoints"));
        Path file = dir.resolve("job.yaml");
        Files.writeString(file, yaml);
        return file;
    }

    @Test
    void recordsOfAPlainProducerLandOnceWithTheirValuesAndTheirPartitionAndOffset() throws Exception {
        String topic = "orders";
        broker.createTopic(topic, 3);
        Map<Long, RecordMetadata> written = new HashMap<>();
        Map<Long, String> amounts = new HashMap<>();
        try (KafkaProducer<String, String> producer = producer()) {
            Map<Long, Future<RecordMetadata>> sends = new HashMap<>();
            for (long id = 0; id < 3_000; id++) {
                String amount = new BigDecimal(id * 37 % 100_000).movePointLeft(2).toPlainString();
                amounts.put(id, amount);
                String value = "{\"order_id\": " + id + ", \"customer\": \"c-" + id % 7 + " ü\", \"amount\": " + amount
                        + ", \"tags\": [\"a\", null], \"ignored\": {\"x\": 1}}";
                sends.put(id, producer.send(new ProducerRecord<>(topic, (int) (id % 3), "k" + id, value)));
            }
            for (Map.Entry<Long, Future<RecordMetadata>> send : sends.entrySet()) {
                written.put(send.getKey(), send.getValue().get());
            }
        }

        JobProcess run = JobProcess.start(job(topic), "latest", JobProcess.Faults.NONE, dir.resolve("run.log"));
        assertThat(run.await(3)).as("log:\n%s", run.tail()).isZero();

        Set<Long> ids = new HashSet<>();
        Map<String, List<Long>> counts = new HashMap<>();
        for (String line : CommittedFiles.lines(dir.resolve("output"))) {
            JsonNode row = JSON.readTree(line);
            long id = row.get("order_id").asLong();
            assertThat(ids.add(id)).as("order %d twice", id).isTrue();
            RecordMetadata where = written.get(id);
            assertThat(row.get("topic").asText()).isEqualTo(topic);
            assertThat(row.get("partition").asInt()).as("partition of %d", id).isEqualTo(where.partition());
            assertThat(row.get("offset").asLong()).as("offset of %d", id).isEqualTo(where.offset());
            assertThat(row.get("amount").decimalValue()).isEqualByComparingTo(new BigDecimal(amounts.get(id)));
            assertThat(row.get("tags").toString()).isEqualTo("[\"a\",null]");
            assertThat(row.has("ignored")).isFalse();
            counts.computeIfAbsent(row.get("customer").asText(), c -> new ArrayList<>()).add(row.get("n").asLong());
        }
        assertThat(ids).hasSize(3_000);
        assertThat(counts).hasSize(7);
        counts.forEach((customer, values) -> assertThat(values.stream().sorted().toList()).as(customer)
                .isEqualTo(java.util.stream.LongStream.rangeClosed(1, values.size()).boxed().toList()));
    }

    @Test
    void aRecordThatIsNotJsonFailsTheJobNamingItsPartitionAndOffset() throws Exception {
        String topic = "not-json";
        broker.createTopic(topic, 1);
        try (KafkaProducer<String, String> producer = producer()) {
            producer.send(new ProducerRecord<>(topic, 0, null, "{\"order_id\": 1, \"customer\": \"a\", \"amount\": 1}")).get();
            producer.send(new ProducerRecord<>(topic, 0, null, "{\"order_id\": 2, \"customer\": \"a\", \"amount\": 1.5}")).get();
            producer.send(new ProducerRecord<>(topic, 0, null, "order 3, not JSON")).get();
        }

        JobProcess run = JobProcess.start(job(topic), "latest", JobProcess.Faults.NONE, dir.resolve("run.log"));
        assertThat(run.await(3)).as("log:\n%s", run.tail()).isEqualTo(1);
        assertThat(Files.readString(dir.resolve("run.log"), StandardCharsets.UTF_8))
                .contains("cannot read the record at offset 2 of partition not-json-0 (format json): not valid JSON");
    }
}
