package dev.onceflow.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceflow.conformance.CommittedFiles;
import dev.onceflow.conformance.JobProcess;
import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Avro records in Confluent's wire format, written to a topic by a plain kafka-clients producer
 * with Avro's own writer (as a Confluent serializer frames them, without a registry), read by a
 * job file in the avro format with a schema file: each record lands once with its values and its
 * partition; a job writing them on in avro writes the same bytes; and a record of another schema
 * id fails the job naming its place.
 */
@Timeout(300)
class KafkaAvroRowsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String AVSC = """
            {"type": "record", "name": "Order", "namespace": "shop", "fields": [
              {"name": "order_id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
              {"name": "placed", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "tags", "type": ["null", {"type": "array", "items": ["null", "string"]}], "default": null}
            ]}""";
    private static final Schema ORDER = new Schema.Parser().parse(AVSC);
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

    private KafkaProducer<String, byte[]> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()));
    }

    /** What a Confluent Avro serializer sends for schema {@code schemaId}: byte 0, the id, Avro's binary. */
    private static byte[] confluentAvro(int schemaId, long id) throws IOException {
        GenericData data = new GenericData();
        data.addLogicalTypeConversion(new Conversions.DecimalConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
        GenericRecord order = new GenericData.Record(ORDER);
        order.put("order_id", id);
        order.put("customer", "c-" + id % 7 + " ü");
        order.put("amount", new BigDecimal(id * 37 % 100_000).movePointLeft(2).setScale(2));
        order.put("placed", Instant.ofEpochMilli(-86_400_000L + id * 1_001));
        order.put("tags", Arrays.asList("a", null));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(new byte[] {0, (byte) (schemaId >>> 24), (byte) (schemaId >>> 16), (byte) (schemaId >>> 8),
                (byte) schemaId});
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(ORDER, data).write(order, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private Path job(String topic) throws IOException {
        Path avsc = dir.resolve("order.avsc");
        Files.writeString(avsc, AVSC);
        String yaml = """
                name: kafka-avro
                parallelism: 2
                source:
                  type: kafka
                  options:
                    bootstrap-servers: '%s'
                    topics: %s
                    bounded: true
                    metadata-fields: partition
                  format: {type: avro, options: {schema-file: '%s', wire-format: confluent, schema-id: 42}}
                steps:
                  - {type: count-by-key, uid: count, options: {key: customer, count: n}}
                sink:
                  type: filesystem
                  options: {path: '%s'}
                  format: json
                checkpoints:
                  interval: 200ms
                  dir: '%s'
                """.formatted(broker.bootstrapServers(), topic, avsc, dir.resolve("output"), dir.resolve("checkpoints"));
        Path file = dir.resolve("job.yaml");
        Files.writeString(file, yaml);
        return file;
    }

    @Test
    void confluentAvroRecordsOfAPlainProducerLandOnceWithTheirValues() throws Exception {
        String topic = "avro-orders";
        broker.createTopic(topic, 2);
        try (KafkaProducer<String, byte[]> producer = producer()) {
            for (long id = 0; id < 1_000; id++) {
                producer.send(new ProducerRecord<>(topic, (int) (id % 2), "k" + id, confluentAvro(42, id)));
            }
            producer.flush();
        }

        JobProcess run = JobProcess.start(job(topic), "latest", JobProcess.Faults.NONE, dir.resolve("run.log"));
        assertThat(run.await(3)).as("log:\n%s", run.tail()).isZero();

        Set<Long> ids = new HashSet<>();
        for (String line : CommittedFiles.lines(dir.resolve("output"))) {
            JsonNode row = JSON.readTree(line);
            long id = row.get("order_id").asLong();
            assertThat(ids.add(id)).as("order %d twice", id).isTrue();
            assertThat(row.get("customer").asText()).isEqualTo("c-" + id % 7 + " ü");
            assertThat(row.get("amount").decimalValue())
                    .isEqualByComparingTo(new BigDecimal(id * 37 % 100_000).movePointLeft(2));
            assertThat(Instant.parse(row.get("placed").asText())).as("placed of %d", id)
                    .isEqualTo(Instant.ofEpochMilli(-86_400_000L + id * 1_001));
            assertThat(row.get("tags").toString()).isEqualTo("[\"a\",null]");
            assertThat(row.get("partition").asLong()).as("partition of %d", id).isEqualTo(id % 2);
        }
        assertThat(ids).hasSize(1_000);
    }

    /**
     * Kafka to Kafka in avro on both sides, exactly-once: the job writes each record's value back
     * byte for byte as Avro's own writer wrote it, so a Confluent consumer of the output sees the
     * producer's records.
     */
    @Test
    void kafkaToKafkaInAvroWritesBackTheProducersBytes() throws Exception {
        broker.createTopic("avro-in", 2);
        broker.createTopic("avro-out", 2);
        Set<String> written = new HashSet<>();
        try (KafkaProducer<String, byte[]> producer = producer()) {
            for (long id = 0; id < 500; id++) {
                byte[] value = confluentAvro(42, id);
                written.add(HexFormat.of().formatHex(value));
                producer.send(new ProducerRecord<>("avro-in", (int) (id % 2), "k" + id, value));
            }
            producer.flush();
        }
        Path avsc = dir.resolve("order.avsc");
        Files.writeString(avsc, AVSC);
        String format = "{type: avro, options: {schema-file: '" + avsc + "', wire-format: confluent, schema-id: 42}}";
        Path job = dir.resolve("kafka-to-kafka.yaml");
        Files.writeString(job, """
                name: kafka-avro-to-kafka
                parallelism: 2
                source:
                  type: kafka
                  options: {bootstrap-servers: '%1$s', topics: avro-in, bounded: true}
                  format: %2$s
                sink:
                  type: kafka
                  options: {bootstrap-servers: '%1$s', topic: avro-out, key-fields: customer}
                  format: %2$s
                checkpoints:
                  interval: 200ms
                  dir: '%3$s'
                """.formatted(broker.bootstrapServers(), format, dir.resolve("checkpoints")));

        JobProcess run = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("run.log"));
        assertThat(run.await(3)).as("log:\n%s", run.tail()).isZero();

        List<String> read = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), new StringDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(new TopicPartition("avro-out", 0), new TopicPartition("avro-out", 1)));
            consumer.seekToBeginning(consumer.assignment());
            Awaitility.await("the job's 500 committed records").atMost(Duration.ofSeconds(60)).pollInSameThread()
                    .until(() -> {
                        consumer.poll(Duration.ofMillis(200))
                                .forEach(r -> read.add(HexFormat.of().formatHex(r.value())));
                        return read.size() >= 500;
                    });
        }
        assertThat(read).hasSize(500).doesNotHaveDuplicates();
        assertThat(new HashSet<>(read)).isEqualTo(written);
    }

    @Test
    void aRecordOfAnotherSchemaIdFailsTheJobNamingItsPartitionAndOffset() throws Exception {
        String topic = "avro-other-id";
        broker.createTopic(topic, 1);
        try (KafkaProducer<String, byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>(topic, 0, null, confluentAvro(42, 1))).get();
            producer.send(new ProducerRecord<>(topic, 0, null, confluentAvro(43, 2))).get();
        }

        JobProcess run = JobProcess.start(job(topic), "latest", JobProcess.Faults.NONE, dir.resolve("run.log"));
        assertThat(run.await(3)).as("log:\n%s", run.tail()).isEqualTo(1);
        assertThat(Files.readString(dir.resolve("run.log"), StandardCharsets.UTF_8))
                .contains("cannot read the record at offset 1 of partition avro-other-id-0 (format avro): the record "
                        + "carries schema id 43, but option 'schema-id' is 42");
    }
}
