package dev.onceflow.connector.kafka.sink;

import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.context;
import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.events;
import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.newTopic;
import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.openTransactions;
import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.readCommitted;
import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.stuckPartitions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.GenericWriteAheadSink;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.WriteAheadWriter;
import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.awaitility.Awaitility;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The write-ahead mode against a real broker: records and marker commit together (WAL-3). */
class WriteAheadKafkaSinkTest {

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

    @SuppressWarnings("unchecked")
    private static GenericWriteAheadSink<Event> sink(String topic) {
        return (GenericWriteAheadSink<Event>) KafkaSink.builder(broker.bootstrapServers(), topic)
                .controlTopic(topic + "-markers").build(KafkaSinkMode.WRITE_AHEAD);
    }

    private static CheckpointCommitter committer(String topic, SinkContext context) throws Exception {
        CheckpointCommitter committer = sink(topic).createCommitter(context);
        committer.open();
        return committer;
    }

    @Test
    void aWrittenSegmentIsVisibleAndItsMarkerSurvivesIntoTheNextAttempt() throws Exception {
        String topic = newTopic(broker, 2);
        SinkContext first = context("wal-markers", 0, 1, 1, null);
        try (CheckpointCommitter committer = committer(topic, first);
                WriteAheadWriter<Event> writer = sink(topic).createWriter(first)) {
            assertThat(committer.isCheckpointCommitted(0, 1)).isFalse();
            assertThat(writer.sendValues(events(0, 40), 0, 1, 0)).isTrue();
            committer.commitCheckpoint(0, 1);
            assertThat(writer.sendValues(events(40, 60), 0, 2, 0)).isTrue();
            committer.commitCheckpoint(0, 2);
        }
        assertThat(readCommitted(broker, topic)).containsExactlyInAnyOrderElementsOf(events(0, 60));

        try (CheckpointCommitter next = committer(topic, context("wal-markers", 0, 1, 1, 2L))) {
            assertThat(next.isCheckpointCommitted(0, 1)).as("WAL-2").isTrue();
            assertThat(next.isCheckpointCommitted(0, 2)).isTrue();
            assertThat(next.isCheckpointCommitted(0, 3)).isFalse();
            assertThat(next.isCheckpointCommitted(1, 1)).as("another subtask's marker").isFalse();
        }
    }

    /** Sends each of {@code segments} of subtask 0 for checkpoints 1, 2, ... and marks it, as the write-ahead operator does. */
    @SafeVarargs
    private static void sendAsTheOperatorDoes(String topic, SinkContext context, List<Event>... segments)
            throws Exception {
        try (CheckpointCommitter committer = committer(topic, context);
                WriteAheadWriter<Event> writer = sink(topic).createWriter(context)) {
            for (int i = 0; i < segments.length; i++) {
                assertThat(writer.sendValues(segments[i], 0, i + 1, 0)).isTrue();
                committer.commitCheckpoint(0, i + 1);
            }
        }
    }

    /**
     * EO-6: started afresh without its checkpoints, the job's checkpoint ids begin again at 1; the
     * earlier run's markers must not make the new run's segments look written, neither at the
     * start nor after a restore of a checkpoint the new run has not sent yet. Check
     * {@code ControlTopicCommitter#forgetAbandonedHistory} and that the newest marker counts.
     */
    @Test
    void aFreshStartNeverTakesAnEarlierRunsMarkersForItsOwn() throws Exception {
        String topic = newTopic(broker, 1);
        sendAsTheOperatorDoes(topic, context("wal-fresh", 0, 1, 1, null), events(0, 10), events(10, 20));

        SinkContext freshRun = context("wal-fresh", 0, 1, 1, null);
        try (CheckpointCommitter committer = committer(topic, freshRun);
                WriteAheadWriter<Event> writer = sink(topic).createWriter(freshRun)) {
            assertThat(committer.isCheckpointCommitted(0, 1)).as("the earlier run's marker of checkpoint 1").isFalse();
            assertThat(committer.isCheckpointCommitted(0, 2)).as("the earlier run's marker of checkpoint 2").isFalse();
            assertThat(writer.sendValues(events(20, 30), 0, 1, 0)).isTrue();
            committer.commitCheckpoint(0, 1);
        }

        // The fresh run completed checkpoint 2 and died before sending its segment.
        try (CheckpointCommitter committer = committer(topic, context("wal-fresh", 0, 1, 1, 2L))) {
            assertThat(committer.isCheckpointCommitted(0, 1)).as("the fresh run's own marker").isTrue();
            assertThat(committer.isCheckpointCommitted(0, 2)).as("the earlier run's marker of checkpoint 2").isFalse();
        }
        assertThat(readCommitted(broker, topic)).containsExactlyInAnyOrderElementsOf(events(0, 30));
    }

    /**
     * 2PC-9: two jobs whose names joined to the same default prefix wrote the same marker keys into
     * the same control topic, so one job took the other's written checkpoints for its own and
     * skipped its segments. Check {@code KafkaSinkSettings.prefix} and {@code ControlMarkers}.
     */
    @Test
    void markersOfAJobWhoseNamesJoinTheSameAreNotThisJobs() throws Exception {
        String topic = newTopic(broker, 1);
        SinkContext other = new SinkContext("orders", "eu-db", 0, 1, 1, OptionalLong.empty(), "a1");
        try (CheckpointCommitter committer = committer(topic, other);
                WriteAheadWriter<Event> writer = sink(topic).createWriter(other)) {
            assertThat(writer.sendValues(events(0, 3), 0, 5, 0)).isTrue();
            committer.commitCheckpoint(0, 5);
        }

        SinkContext mine = new SinkContext("orders-eu", "db", 0, 1, 1, OptionalLong.of(4), "a2");
        try (CheckpointCommitter committer = committer(topic, mine)) {
            assertThat(committer.isCheckpointCommitted(0, 3)).as("another job's marker").isFalse();
        }
    }

    @Test
    void aSegmentWhoseTransactionNeverCommittedIsNotMarkedAndItsTransactionIsAborted() throws Exception {
        String topic = newTopic(broker, 1);
        SinkContext context = context("wal-crash", 0, 1, 1, null);
        try (CheckpointCommitter committer = committer(topic, context)) {
            assertThat(committer.isCheckpointCommitted(0, 5)).isFalse();
        }
        // A writer dies in the middle of segment 5: records and marker sent, no commit.
        var settings = new ProducerSettings(broker.bootstrapServers(), Duration.ofMinutes(15), java.util.Map.of());
        KafkaProducer<byte[], byte[]> dying = settings.openTransactional(TransactionalIds.writeAhead("wal-crash-sink", 0));
        dying.beginTransaction();
        EventRecords records = new EventRecords(topic, RecordKey.KEY, null);
        events(0, 10).forEach(e -> dying.send(records.toRecord(e)));
        dying.send(ControlMarkers.marker(topic + "-markers", "wal-crash-sink", 0, 5));
        dying.flush();
        dying.close(Duration.ZERO);
        assertThat(openTransactions(broker, "wal-crash-sink-")).hasSize(1);

        try (CheckpointCommitter committer = committer(topic, context("wal-crash", 0, 1, 1, 4L));
                WriteAheadWriter<Event> writer = sink(topic).createWriter(context)) {
            assertThat(committer.isCheckpointCommitted(0, 5)).isFalse();
            assertThat(writer.sendValues(events(0, 10), 0, 5, 0)).isTrue();
        }
        assertThat(readCommitted(broker, topic)).containsExactlyInAnyOrderElementsOf(events(0, 10));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> stuckPartitions(broker, topic).isEmpty());
    }

    @Test
    void afterAScaleDownAFormerSubtasksSegmentIsWrittenUnderItsOwnIdAndMarker() throws Exception {
        String topic = newTopic(broker, 2);
        SinkContext scaledDown = context("wal-rescale", 0, 1, 2, 3L);
        try (CheckpointCommitter committer = committer(topic, scaledDown);
                WriteAheadWriter<Event> writer = sink(topic).createWriter(scaledDown)) {
            assertThat(writer.sendValues(events(0, 5), 1, 3, 0)).isTrue();
            committer.commitCheckpoint(1, 3);
        }
        try (CheckpointCommitter later = committer(topic, context("wal-rescale", 0, 1, 1, 4L))) {
            assertThat(later.isCheckpointCommitted(1, 3)).isTrue();
            assertThat(later.isCheckpointCommitted(0, 3)).isFalse();
        }
        assertThat(readCommitted(broker, topic)).hasSize(5);
    }
}
