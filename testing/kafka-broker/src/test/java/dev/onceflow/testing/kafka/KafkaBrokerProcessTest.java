package dev.onceflow.testing.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class KafkaBrokerProcessTest {

    private static final String TOPIC = "durable";

    /**
     * A committed transaction survives a SIGKILL of the broker: after the restart on the same log
     * directory and ports, a read_committed reader sees exactly its records, once, in order.
     */
    @Test
    void committedTransactionSurvivesSigkillAndRestart() {
        List<String> written = IntStream.range(0, 100).mapToObj(i -> "record-" + i).toList();
        try (KafkaBrokerProcess broker = KafkaBrokerProcess.start()) {
            broker.createTopic(TOPIC, 1);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                    ProducerConfig.TRANSACTIONAL_ID_CONFIG, "before-kill"), new StringSerializer(), new StringSerializer())) {
                producer.initTransactions();
                producer.beginTransaction();
                written.forEach(value -> producer.send(new ProducerRecord<>(TOPIC, 0, value, value)));
                producer.commitTransaction();
            }
            String bootstrap = broker.bootstrapServers();
            // commitTransaction() returns once the commit is decided; the markers are written after.
            // Committed here means both, so the kill cannot land between the two.
            try (Admin admin = broker.admin()) {
                Awaitility.await("the commit markers are written").atMost(Duration.ofSeconds(30))
                        .until(() -> admin.describeTransactions(List.of("before-kill")).description("before-kill").get()
                                .state() == TransactionState.COMPLETE_COMMIT);
            }

            broker.kill();
            assertThat(broker.isRunning()).as("broker JVM after SIGKILL").isFalse();
            broker.restart();

            assertThat(broker.bootstrapServers()).as("address after restart").isEqualTo(bootstrap);
            List<String> read;
            try {
                read = readCommitted(broker);
            } catch (RuntimeException | AssertionError e) {
                throw new AssertionError("reading after the restart failed: " + e.getMessage() + "\nbroker log tail:\n"
                        + tail(broker.logFile()), e);
            }
            assertThat(read).as("read_committed after SIGKILL and restart").isEqualTo(written);
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /** Everything a read_committed reader sees in partition 0, read up to its last stable offset. */
    private static List<String> readCommitted(KafkaBrokerProcess broker) {
        TopicPartition partition = new TopicPartition(TOPIC, 0);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            // Right after a restart the last stable offset can trail the commit marker for a moment:
            // wait until it covers the transaction (100 records and the marker), then read up to it.
            Awaitility.await("last stable offset past the commit marker").atMost(Duration.ofSeconds(30)).pollInSameThread()
                    .until(() -> consumer.endOffsets(List.of(partition)).get(partition) >= 101);
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            Awaitility.await("read up to the last stable offset " + end).atMost(Duration.ofSeconds(30)).pollInSameThread()
                    .until(() -> {
                        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                            values.add(record.value());
                        }
                        return consumer.position(partition) >= end;
                    });
        }
        return values;
    }
}
