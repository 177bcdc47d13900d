package dev.onceflow.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.spi.source.Boundedness;
import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Drives the Kafka source through the SPI against a real single-node broker. */
@SuppressWarnings("try") // SourceDriver.close() throws Exception, like the SPI it closes.
class KafkaSourceTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final AtomicInteger TOPICS = new AtomicInteger();

    private static EmbeddedKafkaBroker broker;
    private static KafkaProducer<String, String> producer;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.start();
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer());
    }

    @AfterAll
    static void stopBroker() {
        if (producer != null) {
            producer.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void boundedSourceReadsEveryPartitionOnceAcrossTwoReadersAndEnds() throws Exception {
        String topic = topic(3);
        List<Event> p0 = produce(topic, 0, events(0, 120));
        List<Event> p1 = produce(topic, 1, events(120, 130));
        List<Event> p2 = produce(topic, 2, events(130, 400));
        KafkaSource source = source(topic).bounded(true).build();

        try (SourceDriver<Event> driver = SourceDriver.start(source, 2)) {
            List<Event> output = driver.runToEnd(TIMEOUT);

            List<Event> expected = new ArrayList<>(p0);
            expected.addAll(p1);
            expected.addAll(p2);
            assertThat(output).containsExactlyInAnyOrderElementsOf(expected);
            // Within a partition, the partition's order.
            assertThat(output.stream().filter(p2::contains).toList()).isEqualTo(p2);
            assertThat(driver.enumerator.snapshotState(1).unassigned()).isEmpty();
            assertThat(driver.splits(1)).as("finished splits are not snapshotted").isEmpty();
        }
        assertThat(source.boundedness()).isEqualTo(Boundedness.BOUNDED);
    }

    @Test
    void boundedSourceStopsAtTheEndOffsetsSeenWhenItFirstStarted() throws Exception {
        String topic = topic(1);
        List<Event> before = produce(topic, 0, events(0, 50));
        KafkaSource source = source(topic).bounded(true).build();

        try (SourceDriver<Event> driver = SourceDriver.start(source, 1)) {
            driver.pollOnce();
            produce(topic, 0, events(50, 60));
            assertThat(driver.runToEnd(TIMEOUT)).isEqualTo(before);
        }
    }

    @Test
    void restoreFromCheckpointReadsExactlyTheRest() throws Exception {
        String topic = topic(2);
        List<Event> p0 = produce(topic, 0, events(0, 1200));
        List<Event> p1 = produce(topic, 1, events(1200, 1300));
        KafkaSource source = source(topic).bounded(true).build();

        SourceDriver.Checkpoint checkpoint;
        List<Event> beforeCheckpoint;
        List<KafkaSplit> positions;
        try (SourceDriver<Event> driver = SourceDriver.start(source, 1)) {
            driver.readUntil(600, TIMEOUT);
            beforeCheckpoint = List.copyOf(driver.output);
            checkpoint = driver.checkpoint(5);
            positions = driver.splits(5);
            // Emitted after the barrier and lost with the crash: must come again after the restore.
            driver.readUntil(900, TIMEOUT);
        }

        List<Event> afterRestore;
        try (SourceDriver<Event> restored = SourceDriver.restore(source, 2, checkpoint)) {
            afterRestore = restored.runToEnd(TIMEOUT);
        }

        List<Event> all = new ArrayList<>(p0);
        all.addAll(p1);
        assertThat(positions).allSatisfy(s -> assertThat(s.offset())
                .isEqualTo(beforeCheckpoint.stream().filter(e -> inPartition(e, s, p0, p1)).count()));
        List<Event> expectedAfter = new ArrayList<>(all);
        expectedAfter.removeAll(beforeCheckpoint);
        assertThat(afterRestore).containsExactlyInAnyOrderElementsOf(expectedAfter);
        assertThat(afterRestore.stream().filter(p0::contains).toList())
                .isEqualTo(p0.subList(p0.size() - (int) afterRestore.stream().filter(p0::contains).count(), p0.size()));
    }

    @Test
    void latestStartIsResolvedToAConcreteOffsetBeforeTheFirstCheckpoint() throws Exception {
        String topic = topic(1);
        List<Event> old = produce(topic, 0, events(0, 10));
        KafkaSource source = source(topic).startingOffsets(StartingOffsets.LATEST).build();

        try (SourceDriver<Event> driver = SourceDriver.start(source, 1)) {
            driver.pollOnce();
            assertThat(driver.splits(1)).containsExactly(
                    new KafkaSplit(topic, 0, old.size(), KafkaSplit.UNBOUNDED));
            SourceDriver.Checkpoint checkpoint = driver.checkpoint(1);

            List<Event> fresh = produce(topic, 0, events(10, 15));
            assertThat(driver.readUntil(fresh.size(), TIMEOUT)).isEqualTo(fresh);

            // The checkpoint taken before the new records restores to them, not to a new "latest".
            try (SourceDriver<Event> restored = SourceDriver.restore(source, 1, checkpoint)) {
                assertThat(restored.readUntil(fresh.size(), TIMEOUT)).isEqualTo(fresh);
            }
        }
    }

    @Test
    void partitionsAddedWhileRunningAreDiscoveredAndReadFromEarliest() throws Exception {
        String topic = topic(1);
        List<Event> first = produce(topic, 0, events(0, 20));
        KafkaSource source = source(topic).discoveryInterval(Duration.ofMillis(1)).build();

        try (SourceDriver<Event> driver = SourceDriver.start(source, 2)) {
            assertThat(driver.readUntil(first.size(), TIMEOUT)).isEqualTo(first);
            broker.addPartitions(topic, 2);
            List<Event> second = produce(topic, 1, events(20, 35));

            driver.discover();

            List<Event> expected = new ArrayList<>(first);
            expected.addAll(second);
            assertThat(driver.readUntil(expected.size(), TIMEOUT)).isEqualTo(expected);
            assertThat(driver.splits(1)).containsExactlyInAnyOrder(
                    new KafkaSplit(topic, 0, first.size(), KafkaSplit.UNBOUNDED),
                    new KafkaSplit(topic, 1, second.size(), KafkaSplit.UNBOUNDED));
            assertThat(driver.pollOnce()).doesNotContain(InputStatus.END_OF_INPUT);
        }
    }

    @Test
    void restoredContinuousSourceReadsPartitionsCreatedWhileItWasDownFromEarliestAndNoOtherTwice() throws Exception {
        String topic = topic(1);
        List<Event> first = produce(topic, 0, events(0, 10));
        KafkaSource source = source(topic).discoveryInterval(Duration.ofMillis(1)).build();
        SourceDriver.Checkpoint checkpoint;
        try (SourceDriver<Event> driver = SourceDriver.start(source, 1)) {
            assertThat(driver.readUntil(first.size(), TIMEOUT)).isEqualTo(first);
            checkpoint = driver.checkpoint(3);
        }
        broker.addPartitions(topic, 2);
        List<Event> second = produce(topic, 1, events(10, 14));

        try (SourceDriver<Event> restored = SourceDriver.restore(source, 2, checkpoint)) {
            assertThat(restored.readUntil(second.size(), TIMEOUT)).isEqualTo(second);
            assertThat(restored.splits(4)).containsExactlyInAnyOrder(
                    new KafkaSplit(topic, 0, first.size(), KafkaSplit.UNBOUNDED),
                    new KafkaSplit(topic, 1, second.size(), KafkaSplit.UNBOUNDED));
            assertThat(restored.enumerator.snapshotState(4).discovered()).containsExactlyInAnyOrder(
                    new TopicPartition(topic, 0), new TopicPartition(topic, 1));
        }
    }

    @Test
    void topicPatternFindsMatchingTopicsIncludingNewOnes() throws Exception {
        String prefix = "pattern" + TOPICS.incrementAndGet() + "-";
        broker.createTopic(prefix + "a", 1);
        broker.createTopic("other" + prefix, 1);
        List<Event> a = produce(prefix + "a", 0, events(0, 5));
        produce("other" + prefix, 0, events(100, 105));
        KafkaSource source = KafkaSource.builder(broker.bootstrapServers()).topicPattern(prefix + ".*")
                .discoveryInterval(Duration.ofMillis(1)).build();

        try (SourceDriver<Event> driver = SourceDriver.start(source, 1)) {
            assertThat(driver.readUntil(a.size(), TIMEOUT)).isEqualTo(a);
            broker.createTopic(prefix + "b", 1);
            List<Event> b = produce(prefix + "b", 0, events(5, 9));
            driver.discover();

            List<Event> expected = new ArrayList<>(a);
            expected.addAll(b);
            assertThat(driver.readUntil(expected.size(), TIMEOUT)).isEqualTo(expected);
        }
    }

    @Test
    void readCommittedNeverEmitsAbortedRecordsAndEndsAfterACommitMarker() throws Exception {
        String topic = topic(1);
        List<Event> committed = new ArrayList<>();
        try (KafkaProducer<String, String> txn = transactionalProducer("txn-" + topic)) {
            txn.initTransactions();
            committed.addAll(inTransaction(txn, topic, events(0, 10), true));
            inTransaction(txn, topic, events(100, 110), false);
            committed.addAll(inTransaction(txn, topic, events(10, 20), true));
        }
        KafkaSource source = source(topic).bounded(true).build();

        try (SourceDriver<Event> driver = SourceDriver.start(source, 1)) {
            // The last offset of the partition is a commit marker: the split must still finish.
            assertThat(driver.runToEnd(TIMEOUT)).isEqualTo(committed);
        }
    }

    @Test
    void readUncommittedEmitsAbortedRecordsToo() throws Exception {
        String topic = topic(1);
        List<Event> all = new ArrayList<>();
        try (KafkaProducer<String, String> txn = transactionalProducer("txn-" + topic)) {
            txn.initTransactions();
            all.addAll(inTransaction(txn, topic, events(0, 3), false));
            all.addAll(inTransaction(txn, topic, events(3, 6), true));
        }
        KafkaSource source = source(topic).bounded(true)
                .isolationLevel(org.apache.kafka.common.IsolationLevel.READ_UNCOMMITTED).build();

        try (SourceDriver<Event> driver = SourceDriver.start(source, 1)) {
            assertThat(driver.runToEnd(TIMEOUT)).isEqualTo(all);
        }
    }

    @Test
    void aRecordThatIsNotAnEventFailsNamingItsPartitionAndOffset() throws Exception {
        String topic = topic(1);
        produce(topic, 0, events(0, 2));
        producer.send(new ProducerRecord<>(topic, 0, null, "not an event")).get();
        produce(topic, 0, events(2, 3));

        try (SourceDriver<Event> driver = SourceDriver.start(source(topic).bounded(true).build(), 1)) {
            assertThatThrownBy(() -> driver.runToEnd(TIMEOUT))
                    .isInstanceOf(IOException.class)
                    .hasMessage("cannot read the record at offset 2 of partition " + topic + "-0 (format event): "
                            + "expected 4 fields id,key,count,payload but found 1 in line: not an event");
            assertThat(driver.output).extracting(Event::id).containsExactly("0", "1");
        }
    }

    @Test
    void completedCheckpointsCommitPositionsThatCommittedStartResumesFrom() throws Exception {
        String topic = topic(1);
        List<Event> all = produce(topic, 0, events(0, 30));
        String group = "group-" + topic;

        try (SourceDriver<Event> driver = SourceDriver.start(source(topic).groupId(group).build(), 1)) {
            driver.readUntil(all.size(), TIMEOUT);
            driver.splits(7);
            driver.notifyCheckpointComplete(7);
            // The commit is asynchronous: its callback runs inside a later poll.
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (committedOffset(group, new TopicPartition(topic, 0)) != all.size()) {
                driver.pollOnce();
                assertThat(System.nanoTime()).as("offset committed in time").isLessThan(deadline);
            }
        }
        List<Event> more = produce(topic, 0, events(30, 33));
        KafkaSource resumed = source(topic).groupId(group).startingOffsets(StartingOffsets.COMMITTED).build();
        try (SourceDriver<Event> driver = SourceDriver.start(resumed, 1)) {
            assertThat(driver.readUntil(more.size(), TIMEOUT)).isEqualTo(more);
        }
    }

    @Test
    void committedStartWithoutCommittedOffsetsUsesTheFallback() throws Exception {
        String topic = topic(1);
        List<Event> all = produce(topic, 0, events(0, 4));
        KafkaSource.Builder builder = source(topic).groupId("never-committed-" + topic)
                .startingOffsets(StartingOffsets.COMMITTED);

        try (SourceDriver<Event> driver = SourceDriver.start(builder.bounded(true).build(), 1)) {
            assertThat(driver.runToEnd(TIMEOUT)).isEqualTo(all);
        }
        KafkaSource failing = builder.committedOffsetsFallback(CommittedOffsetsFallback.FAIL).build();
        assertThatThrownBy(() -> SourceDriver.start(failing, 1))
                .hasMessage("consumer group never-committed-" + topic + " has no committed offset for [" + topic
                        + "-0] and committed-offsets-fallback is FAIL");
    }

    @Test
    void timestampStartSkipsOlderRecordsAndEveryRecordKeepsItsKafkaTimestamp() throws Exception {
        String topic = topic(1);
        // Recent timestamps: records older than the broker's retention could be deleted mid-test.
        long t0 = System.currentTimeMillis() - 60_000;
        for (int i = 0; i < 6; i++) {
            Event e = new Event(Integer.toString(i), "k", "p", 0);
            producer.send(new ProducerRecord<>(topic, 0, t0 + i * 1000L, null, EventFormat.toLine(e))).get();
        }
        KafkaSource source = source(topic).bounded(true).startingOffsets(StartingOffsets.TIMESTAMP)
                .startingTimestamp(t0 + 3500).build();

        try (SourceDriver<Event> driver = SourceDriver.start(source, 1)) {
            assertThat(driver.runToEnd(TIMEOUT)).extracting(Event::id).containsExactly("4", "5");
            assertThat(driver.timestamps).as("the record timestamps, for event time downstream")
                    .containsExactly(t0 + 4000, t0 + 5000);
        }
    }

    @Test
    void aTopicThatDoesNotExistFailsTheStartNamingIt() {
        KafkaSource source = source("absent-" + TOPICS.incrementAndGet()).build();

        assertThatThrownBy(() -> SourceDriver.start(source, 1))
                .hasMessageStartingWith("a topic of [" + source.topics().get(0) + "] does not exist");
    }

    // ------------------------------------------------------------------ helpers

    private static KafkaSource.Builder source(String topic) {
        return KafkaSource.builder(broker.bootstrapServers()).topics(List.of(topic));
    }

    private static String topic(int partitions) {
        String name = "topic-" + TOPICS.incrementAndGet();
        broker.createTopic(name, partitions);
        return name;
    }

    private static List<Event> events(int from, int to) {
        return IntStream.range(from, to)
                .mapToObj(i -> new Event(Integer.toString(i), "key-" + i % 3, "payload, \"" + i + "\"", i % 5))
                .toList();
    }

    private static List<Event> produce(String topic, int partition, List<Event> events) throws Exception {
        for (Event event : events) {
            producer.send(new ProducerRecord<>(topic, partition, event.key(), EventFormat.toLine(event)));
        }
        producer.flush();
        return events;
    }

    private static KafkaProducer<String, String> transactionalProducer(String transactionalId) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId), new StringSerializer(), new StringSerializer());
    }

    private static List<Event> inTransaction(KafkaProducer<String, String> txn, String topic, List<Event> events,
            boolean commit) {
        txn.beginTransaction();
        events.forEach(e -> txn.send(new ProducerRecord<>(topic, 0, e.key(), EventFormat.toLine(e))));
        if (commit) {
            txn.commitTransaction();
        } else {
            txn.flush();
            txn.abortTransaction();
        }
        return events;
    }

    private static long committedOffset(String group, TopicPartition partition) throws Exception {
        try (Admin admin = broker.admin()) {
            OffsetAndMetadata offset = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
                    .get(partition);
            return offset == null ? -1 : offset.offset();
        }
    }

    private static boolean inPartition(Event e, KafkaSplit split, List<Event> p0, List<Event> p1) {
        return split.partition() == 0 ? p0.contains(e) : p1.contains(e);
    }
}
