package dev.onceflow.connector.kafka.sink;

import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.newTopic;
import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.stuckPartitions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * The producer internals behind exactly-once recovery, checked against every kafka-clients
 * release the sink supports ({@link ProducerInternals#SUPPORTED_VERSIONS}): each release is loaded
 * in a class loader of its own, with the sink's classes, and commits a transaction that another
 * producer pre-committed and abandoned. The jars are copied into
 * {@code target/kafka-clients-versions} by the build.
 */
class ProducerInternalsVersionsTest {

    private static final Path JARS = Path.of("target", "kafka-clients-versions");
    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void start() {
        broker = KafkaTestSupport.startBroker();
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    static List<Path> clientJars() throws IOException {
        try (Stream<Path> jars = Files.list(JARS)) {
            List<Path> found = jars.filter(p -> p.getFileName().toString().startsWith("kafka-clients-")).sorted()
                    .toList();
            assertThat(found).as("kafka-clients jars in %s (copied by the build)", JARS.toAbsolutePath())
                    .hasSize(ProducerInternals.SUPPORTED_VERSIONS.size());
            return found;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("clientJars")
    void aPreCommittedTransactionIsCommittedByAnotherProducer(Path clientJar) throws Exception {
        String topic = newTopic(broker, 1);
        String version = clientJar.getFileName().toString().replace("kafka-clients-", "").replace(".jar", "");
        List<URL> classpath = new ArrayList<>(List.of(clientJar.toUri().toURL(),
                codeSource(LoggerFactory.class), codeSource(ProducerInternals.class),
                codeSource(ResumeInIsolation.class)));
        try (URLClassLoader loader = new URLClassLoader(classpath.toArray(URL[]::new),
                ClassLoader.getPlatformClassLoader())) {
            // kafka-clients loads configured classes (serializers, reporters) through the context loader.
            Thread.currentThread().setContextClassLoader(loader);
            Object reported = loader.loadClass(ResumeInIsolation.class.getName())
                    .getMethod("preCommitAbandonAndResume", String.class, String.class, String.class, int.class)
                    .invoke(null, broker.bootstrapServers(), topic, "versions-" + version, 25);
            assertThat(reported).as("the loader holds the release under test").isEqualTo(version);
        } finally {
            Thread.currentThread().setContextClassLoader(ProducerInternalsVersionsTest.class.getClassLoader());
        }
        assertThat(committedValues(topic)).hasSize(25).contains("r0", "r24");
        assertThat(stuckPartitions(broker, topic)).isEmpty();
    }

    private static URL codeSource(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }

    private static List<String> committedValues(String topic) {
        Map<String, Object> props = new HashMap<>(broker.clientProperties());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (consumer.position(partition) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    values.add(new String(record.value(), StandardCharsets.UTF_8));
                }
            }
        }
        return values;
    }
}
