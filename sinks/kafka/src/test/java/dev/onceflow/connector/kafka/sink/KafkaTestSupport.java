package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** A broker shared by a test class, fresh topics, and what a read_committed reader sees. */
final class KafkaTestSupport {

    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private KafkaTestSupport() {
    }

    /** A broker that aborts timed-out transactions within about a second. */
    static EmbeddedKafkaBroker startBroker() {
        return EmbeddedKafkaBroker.start(Map.of("transaction.abort.timed.out.transaction.cleanup.interval.ms", "500"));
    }

    static String newTopic(EmbeddedKafkaBroker broker, int partitions) {
        String topic = "sink-test-" + NAMES.incrementAndGet();
        broker.createTopic(topic, partitions);
        return topic;
    }

    static SinkContext context(String job, int subtask, int parallelism, int restoredParallelism, Long restored) {
        return new SinkContext(job, "sink", subtask, parallelism, restoredParallelism,
                restored == null ? OptionalLong.empty() : OptionalLong.of(restored), "attempt-" + NAMES.incrementAndGet());
    }

    static List<Event> events(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> new Event("e" + i, "k" + (i % 7), "payload " + i, i)).toList();
    }

    /** Everything a read_committed reader sees in {@code topic}, read up to its high watermark. */
    static List<Event> readCommitted(EmbeddedKafkaBroker broker, String topic) {
        return readCommittedRecords(broker, topic).stream()
                .map(record -> EventFormat.parse(new String(record.value(), StandardCharsets.UTF_8))).toList();
    }

    /** The records a read_committed reader sees in {@code topic}, read up to its high watermark. */
    static List<ConsumerRecord<byte[], byte[]>> readCommittedRecords(EmbeddedKafkaBroker broker, String topic) {
        Map<String, Object> props = new HashMap<>(broker.clientProperties());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " up to " + ends);
                }
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
        }
        return records;
    }

    /** Partitions of {@code topic} whose last stable offset is below the high watermark: an open transaction. */
    static Map<TopicPartition, String> stuckPartitions(EmbeddedKafkaBroker broker, String topic) throws Exception {
        try (Admin admin = broker.admin()) {
            int count = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            IntStream.range(0, count).forEach(p -> latest.put(new TopicPartition(topic, p), OffsetSpec.latest()));
            var committed = admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get();
            var written = admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED)).all().get();
            Map<TopicPartition, String> stuck = new HashMap<>();
            committed.forEach((partition, info) -> {
                long end = written.get(partition).offset();
                if (info.offset() < end) {
                    stuck.put(partition, "last stable offset " + info.offset() + " < high watermark " + end);
                }
            });
            return stuck;
        }
    }

    /** Open transactions whose transactional id starts with {@code prefix}. */
    static List<String> openTransactions(EmbeddedKafkaBroker broker, String prefix) throws Exception {
        try (Admin admin = broker.admin()) {
            return admin.listTransactions(new ListTransactionsOptions().filterStates(List.of(TransactionState.ONGOING)))
                    .all().get().stream().map(TransactionListing::transactionalId)
                    .filter(id -> id.startsWith(prefix)).toList();
        }
    }
}
