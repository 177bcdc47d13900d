package dev.onceflow.testing.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
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

    /**
     * A test JVM that is SIGKILLed runs no shutdown hook; its broker must not outlive it. The
     * owner here is a JVM of its own that starts a broker and is then killed.
     */
    @Test
    void brokerHaltsAndDeletesItsDirectoryOnceItsTestJvmIsKilled() throws Exception {
        Process owner = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), BrokerOwner.class.getName())
                .redirectErrorStream(true).start();
        ProcessHandle broker = null;
        Path directory = null;
        try {
            List<String> output = new ArrayList<>();
            BufferedReader lines = new BufferedReader(new InputStreamReader(owner.getInputStream(), StandardCharsets.UTF_8));
            String line;
            // The owner prints nothing after this line; reading on would wait for its end.
            while (broker == null && (line = lines.readLine()) != null) {
                output.add(line);
                if (line.startsWith(BrokerOwner.PREFIX)) {
                    String[] pidAndDirectory = line.substring(BrokerOwner.PREFIX.length()).split(" ", 2);
                    broker = ProcessHandle.of(Long.parseLong(pidAndDirectory[0])).orElseThrow();
                    directory = Path.of(pidAndDirectory[1]);
                }
            }
            assertThat(broker).as("the owner's broker; its output:\n" + String.join("\n", output)).isNotNull();
            assertThat(directory).isDirectory();

            owner.destroyForcibly().waitFor(); // SIGKILL

            long pid = broker.pid();
            Path gone = directory;
            // Not a child of this JVM, and perhaps not reaped yet: a zombie counts as ended.
            Awaitility.await("the orphaned broker ends").atMost(Duration.ofSeconds(30)).until(() -> !running(pid));
            assertThat(gone).as("the orphaned broker's directory").doesNotExist();
            assertThat(gone.resolveSibling(gone.getFileName() + ".orphaned")).doesNotExist();
        } finally {
            owner.destroyForcibly();
            if (broker != null) {
                broker.destroyForcibly();
            }
            if (directory != null) {
                SingleNodeKRaft.deleteQuietly(directory);
            }
        }
    }

    /** Whether process {@code pid} runs: it has a {@code /proc} entry and is not a zombie. */
    private static boolean running(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException e) {
            return false;
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
