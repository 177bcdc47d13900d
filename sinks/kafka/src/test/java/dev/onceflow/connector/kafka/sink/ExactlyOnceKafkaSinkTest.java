package dev.onceflow.connector.kafka.sink;

import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.context;
import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.events;
import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.newTopic;
import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.openTransactions;
import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.readCommitted;
import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.stuckPartitions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.PreCommitted;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The exactly-once writer against a real broker, one rule of {@code docs/spec.md} per test. A
 * "crash" is a writer abandoned without {@code abort}: its producers are closed the way a dead
 * process leaves them, without ending any transaction.
 */
class ExactlyOnceKafkaSinkTest {

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
    private static TransactionalWriter<Event, KafkaTransaction> writer(KafkaSink.Builder builder, SinkContext context)
            throws Exception {
        return ((TwoPhaseCommitSink<Event, KafkaTransaction>) builder.build(KafkaSinkMode.EXACTLY_ONCE))
                .createWriter(context);
    }

    private static KafkaSink.Builder<Event> sink(String topic) {
        return KafkaSink.builder(broker.bootstrapServers(), topic);
    }

    private static KafkaTransaction writeAndPreCommit(TransactionalWriter<Event, KafkaTransaction> writer,
            long checkpointId, List<Event> events) throws Exception {
        KafkaTransaction open = writer.beginTransaction(checkpointId);
        for (Event event : events) {
            writer.write(open, event);
        }
        return writer.preCommit(open);
    }

    @Test
    void preCommittedRecordsAreInvisibleUntilCommitThenVisibleOnce() throws Exception {
        String topic = newTopic(broker, 2);
        try (var writer = writer(sink(topic), context("eo-visible", 0, 1, 1, null))) {
            writer.abortLingering();
            KafkaTransaction first = writeAndPreCommit(writer, 1, events(0, 50));
            assertThat(first.records()).isEqualTo(50);
            assertThat(first.producerId()).isNotNegative();
            assertThat(readCommitted(broker, topic)).as("2PC-1: nothing visible before commit").isEmpty();

            // The next checkpoint's transaction runs on another pooled id while the first waits.
            KafkaTransaction second = writeAndPreCommit(writer, 2, events(50, 80));
            assertThat(second.transactionalId()).isNotEqualTo(first.transactionalId());
            writer.commit(first);
            assertThat(readCommitted(broker, topic)).containsExactlyInAnyOrderElementsOf(events(0, 50));
            writer.commit(second);
            // A third checkpoint reuses the first id: the pool stays at two.
            KafkaTransaction third = writeAndPreCommit(writer, 3, events(80, 90));
            assertThat(third.transactionalId()).isEqualTo(first.transactionalId());
            writer.commit(third);
        }
        assertThat(readCommitted(broker, topic)).containsExactlyInAnyOrderElementsOf(events(0, 90));
        assertThat(stuckPartitions(broker, topic)).isEmpty();
    }

    /**
     * The barrier does not wait for the broker: pre-commit returns the handle while the last
     * records are still unacknowledged, the next transaction goes on, and the stage completes
     * once the broker acknowledged them all (2PC-2), still invisible until commit.
     */
    @Test
    void preCommitAsyncReturnsWhileTheBrokerStillAcknowledgesAndTheNextTransactionGoesOn() throws Exception {
        String topic = newTopic(broker, 1);
        HoldAcknowledgements.reset();
        KafkaSink.Builder slowBroker = sink(topic).property("interceptor.classes", HoldAcknowledgements.class.getName());
        List<Event> events = events(0, 60);
        PreCommitted<KafkaTransaction> preCommitted;
        try (var writer = writer(slowBroker, context("eo-async", 0, 1, 1, null))) {
            writer.abortLingering();
            KafkaTransaction first = writer.beginTransaction(1);
            writer.write(first, events.get(0));
            writer.write(first, events.get(1));
            // The interceptor sees an acknowledgement before the writer's callback does; the
            // callbacks run one after the other, so the second's means the first one's has run.
            Awaitility.await("two records are acknowledged").atMost(Duration.ofSeconds(30))
                    .until(() -> HoldAcknowledgements.acknowledged() == 2);
            HoldAcknowledgements.hold();
            try {
                for (Event event : events.subList(2, 50)) {
                    writer.write(first, event);
                }

                preCommitted = assertTimeoutPreemptively(Duration.ofSeconds(10),
                        () -> writer.preCommitAsync(first), "preCommitAsync waited for the broker");

                assertThat(preCommitted.handle().records()).isEqualTo(50);
                assertThat(preCommitted.handle().probe()).as("the first record, where recovery looks")
                        .isEqualTo(new KafkaTransaction.RecordPosition(topic, 0, 0));
                CompletableFuture<Void> durable = preCommitted.durable().toCompletableFuture();
                assertThat(durable).as("48 records are not acknowledged yet").isNotDone();
                KafkaTransaction second = writer.beginTransaction(2);
                for (Event event : events.subList(50, 60)) {
                    writer.write(second, event);
                }

                HoldAcknowledgements.release();
                durable.get(30, TimeUnit.SECONDS);
                assertThat(HoldAcknowledgements.acknowledged()).as("acknowledged when the stage completed")
                        .isGreaterThanOrEqualTo(50);
                assertThat(readCommitted(broker, topic)).as("2PC-1: nothing visible before commit").isEmpty();
                writer.commit(writer.preCommit(second));
            } finally {
                HoldAcknowledgements.release(); // before close(), which waits for the producers' threads
            }
        }
        // The second transaction is committed, but the first, still open, holds its records back.
        assertThat(readCommitted(broker, topic)).as("read_committed while the first is open").isEmpty();

        // The handle taken at the barrier is all another process needs (2PC-2).
        try (var recovering = writer(sink(topic), context("eo-async", 0, 1, 1, 1L))) {
            recovering.recoverAndCommit(preCommitted.handle());
        }
        assertThat(readCommitted(broker, topic)).containsExactlyElementsOf(events);
        assertThat(stuckPartitions(broker, topic)).isEmpty();
    }

    @Test
    void anotherProcessCommitsAPreCommittedTransactionAfterACrash() throws Exception {
        String topic = newTopic(broker, 2);
        KafkaTransaction handle;
        var crashed = writer(sink(topic), context("eo-resume", 0, 1, 1, null));
        crashed.abortLingering();
        handle = writeAndPreCommit(crashed, 7, events(0, 100));
        crashed.close(); // never ends a pre-committed transaction, as after a crash

        try (var recovering = writer(sink(topic), context("eo-resume", 0, 1, 1, 7L))) {
            recovering.recoverAndCommit(handle);
            recovering.abortLingering();
            assertThat(readCommitted(broker, topic)).as("2PC-2, 2PC-5").containsExactlyInAnyOrderElementsOf(events(0, 100));
            // 2PC-4: committing again, as after a crash between commit and the next checkpoint.
            recovering.recoverAndCommit(handle);
            recovering.commit(handle);
        }
        assertThat(readCommitted(broker, topic)).hasSize(100);
        assertThat(stuckPartitions(broker, topic)).isEmpty();
    }

    @Test
    void aCommitAfterTheIdMovedOnToNewerTransactionsSucceedsWithoutEffect() throws Exception {
        String topic = newTopic(broker, 1);
        try (var writer = writer(sink(topic), context("eo-moved-on", 0, 1, 1, null))) {
            writer.abortLingering();
            KafkaTransaction first = writeAndPreCommit(writer, 1, events(0, 10));
            writer.commit(first);
            for (long checkpoint = 2; checkpoint <= 5; checkpoint++) {
                KafkaTransaction next = writeAndPreCommit(writer, checkpoint, events((int) checkpoint * 10,
                        (int) checkpoint * 10 + 10));
                writer.commit(next);
            }
            writer.recoverAndCommit(first);
        }
        assertThat(readCommitted(broker, topic)).hasSize(50);
    }

    @Test
    void aTransactionAbortedByTheBrokerAfterItsTimeoutFailsRecoveryLoudly() throws Exception {
        String topic = newTopic(broker, 1);
        KafkaSink.Builder shortTimeout = sink(topic).transactionTimeout(Duration.ofSeconds(2));
        var crashed = writer(shortTimeout, context("eo-timeout", 0, 1, 1, null));
        crashed.abortLingering();
        KafkaTransaction handle = writeAndPreCommit(crashed, 4, events(0, 20));
        crashed.close();
        Awaitility.await("the broker aborts the timed-out transaction").atMost(Duration.ofSeconds(30))
                .until(() -> stuckPartitions(broker, topic).isEmpty());

        try (var recovering = writer(shortTimeout, context("eo-timeout", 0, 1, 1, 4L))) {
            assertThatThrownBy(() -> recovering.recoverAndCommit(handle))
                    .as("2PC-5: never success for lost data")
                    .hasMessageContaining("LOST")
                    .hasMessageContaining(handle.transactionalId())
                    .hasMessageContaining("transaction timeout (2s)")
                    .hasMessageContaining("write-ahead");
        }
        assertThat(readCommitted(broker, topic)).isEmpty();
    }

    @Test
    void abortLingeringEndsOpenTransactionsOfThisSubtaskAndOfFormerSubtasksItOwns() throws Exception {
        String topic = newTopic(broker, 2);
        // Three subtasks crash with open transactions; the job comes back with parallelism 2.
        List<TransactionalWriter<Event, KafkaTransaction>> crashed = new ArrayList<>();
        for (int subtask = 0; subtask < 3; subtask++) {
            var writer = writer(sink(topic), context("eo-lingering", subtask, 3, 3, null));
            writer.abortLingering();
            KafkaTransaction open = writer.beginTransaction(3);
            for (Event event : events(subtask * 10, subtask * 10 + 10)) {
                writer.write(open, event);
            }
            writer.preCommit(open); // flushed: the broker knows the transaction
            crashed.add(writer);
        }
        for (var writer : crashed) {
            writer.close();
        }
        assertThat(openTransactions(broker, "eo-lingering:sink-")).hasSize(3);
        assertThat(stuckPartitions(broker, topic)).isNotEmpty();

        try (var first = writer(sink(topic), context("eo-lingering", 0, 2, 3, 2L));
                var second = writer(sink(topic), context("eo-lingering", 1, 2, 3, 2L))) {
            first.abortLingering(); // its own and former subtask 2 (2 % 2 == 0)
            assertThat(openTransactions(broker, "eo-lingering:sink-")).containsExactly("eo-lingering:sink-1-0");
            second.abortLingering();
            assertThat(openTransactions(broker, "eo-lingering:sink-")).isEmpty();
        }
        Awaitility.await("2PC-7: readers are no longer held back").atMost(Duration.ofSeconds(10))
                .until(() -> stuckPartitions(broker, topic).isEmpty());
        assertThat(readCommitted(broker, topic)).isEmpty();
    }

    @Test
    void anotherSinksTransactionsAreNeverTouchedEvenWhenItsPrefixExtendsThisOne() throws Exception {
        String topic = newTopic(broker, 1);
        var other = writer(sink(topic).transactionalIdPrefix("orders-eu"), context("other", 0, 1, 1, null));
        other.abortLingering();
        KafkaTransaction theirs = writeAndPreCommit(other, 1, events(0, 5));
        try (var mine = writer(sink(topic).transactionalIdPrefix("orders"), context("mine", 0, 1, 1, null))) {
            mine.abortLingering();
        }
        other.commit(theirs);
        other.close();
        assertThat(readCommitted(broker, topic)).hasSize(5);
    }

    /**
     * 2PC-9: job {@code orders} with sink {@code eu-db} and job {@code orders-eu} with sink
     * {@code db} once had the same default transactional ids, so one job's start fenced the
     * other's transactions. Check {@code KafkaSinkSettings.prefix} and {@code TransactionalIds}.
     */
    @Test
    void jobsWhoseNamesJoinTheSameWithADashNeverTouchEachOthersTransactions() throws Exception {
        String topic = newTopic(broker, 1);
        SinkContext victimContext = new SinkContext("orders-eu", "db", 0, 1, 1, OptionalLong.empty(), "a1");
        SinkContext otherContext = new SinkContext("orders", "eu-db", 0, 1, 1, OptionalLong.empty(), "a2");
        var victim = writer(sink(topic), victimContext);
        victim.abortLingering();
        KafkaTransaction theirs = writeAndPreCommit(victim, 1, events(0, 5));
        KafkaTransaction open = victim.beginTransaction(2);
        victim.write(open, events(5, 6).get(0));
        try (var other = writer(sink(topic), otherContext)) {
            other.abortLingering();
            other.commit(writeAndPreCommit(other, 1, events(100, 102)));
        }

        assertThat(openTransactions(broker, "orders-eu:db-")).as("the victim's open transactions are untouched")
                .hasSize(2);
        victim.commit(theirs);
        victim.commit(victim.preCommit(open));
        victim.close();
        assertThat(readCommitted(broker, topic)).containsExactlyInAnyOrderElementsOf(
                java.util.stream.Stream.of(events(0, 6), events(100, 102)).flatMap(List::stream).toList());
    }

    @Test
    void abortEndsTheOpenTransactionAndCloseLeavesNothingOpen() throws Exception {
        String topic = newTopic(broker, 1);
        try (var writer = writer(sink(topic), context("eo-abort", 0, 1, 1, null))) {
            writer.abortLingering();
            KafkaTransaction open = writer.beginTransaction(1);
            for (Event event : events(0, 10)) {
                writer.write(open, event);
            }
            writer.abort(open);
        }
        assertThat(openTransactions(broker, "eo-abort-")).isEmpty();
        assertThat(stuckPartitions(broker, topic)).isEmpty();
        assertThat(readCommitted(broker, topic)).isEmpty();
    }

    @Test
    void aTopicTemplateSendsEachKeyToItsOwnTopicAndAKeyMakingAnIllegalNameFailsNamingTheRecord() throws Exception {
        String base = newTopic(broker, 1) + "-by-key";
        List<Event> events = events(0, 21); // keys k0..k6, three events each
        for (int k = 0; k < 7; k++) {
            broker.createTopic(base + "-k" + k, 1);
        }
        KafkaSink.Builder routed = sink(base + "-{key}");
        try (var writer = writer(routed, context("eo-template", 0, 1, 1, null))) {
            writer.abortLingering();
            writer.commit(writeAndPreCommit(writer, 1, events));
        }
        try (var crashed = writer(routed, context("eo-template", 0, 1, 1, null))) {
            crashed.abortLingering();
            KafkaTransaction handle = writeAndPreCommit(crashed, 2, events(21, 28));
            try (var recovering = writer(routed, context("eo-template", 0, 1, 1, 2L))) {
                recovering.recoverAndCommit(handle); // resumes through the probe record's topic
            }
        }
        for (int k = 0; k < 7; k++) {
            String key = "k" + k;
            assertThat(readCommitted(broker, base + "-" + key)).as(key).hasSize(4).allMatch(e -> e.key().equals(key));
        }
        try (var writer = writer(routed, context("eo-template-bad", 0, 1, 1, null))) {
            writer.abortLingering();
            KafkaTransaction open = writer.beginTransaction(1);
            assertThatThrownBy(() -> writer.write(open, new Event("e-77", "a b", "p", 1)))
                    .hasMessageContaining("record e-77 has key 'a b'")
                    .hasMessageContaining("not a legal Kafka topic name");
            writer.abort(open);
        }
    }

    @Test
    void aMissingTopicFailsTheWriteWithTheTopicNamed() throws Exception {
        KafkaSink.Builder builder = sink("no-such-topic").property("max.block.ms", "2000");
        try (var writer = writer(builder, context("eo-missing", 0, 1, 1, null))) {
            writer.abortLingering();
            KafkaTransaction open = writer.beginTransaction(1);
            assertThatThrownBy(() -> {
                writer.write(open, events(0, 1).get(0));
                writer.preCommit(open);
            }).hasMessageContaining("no-such-topic");
        }
    }

    @Test
    void aTransactionTimeoutTheJobsCheckpointTimeoutAndRestartsCanOutlastIsRefusedSayingWhatToSet() {
        SinkContext job = new SinkContext("eo-check", "sink", 0, 1, 1, OptionalLong.empty(), "a", 1,
                Optional.of(Duration.ofSeconds(90)));
        assertThatThrownBy(() -> writer(sink("any").transactionTimeout(Duration.ofMinutes(1)), job))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("transaction-timeout 1m is not longer than")
                .hasMessageContaining("set transaction-timeout above 90s");
        ExactlyOnceKafkaWriter.checkTransactionTimeout(Duration.ofMinutes(2), job);
        ExactlyOnceKafkaWriter.checkTransactionTimeout(Duration.ofSeconds(1), new SinkContext("eo-check", "sink", 0, 1, 1,
                OptionalLong.empty(), "a", 1, Optional.empty()));
    }

    @Test
    void theBrokerUsesTransactionProtocolTwoAndTheInternalsAreFound() {
        assertThat(ProducerInternals.clientVersion()).startsWith("4.4.");
        assertThat(ProducerInternals.load()).isNotNull();
        try (Admin admin = broker.admin()) {
            assertThat(admin.describeFeatures().featureMetadata().get().finalizedFeatures().get("transaction.version")
                    .maxVersionLevel()).isGreaterThanOrEqualTo((short) 2);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
