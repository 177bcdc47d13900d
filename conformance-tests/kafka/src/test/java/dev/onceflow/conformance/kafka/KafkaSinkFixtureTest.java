package dev.onceflow.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.TestDestination;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The oracle of the Kafka sink suite must be able to fail: a committed reader that sees only
 * committed records and does not hang on an open transaction, and leftovers that name the open
 * transaction and the partition it blocks.
 */
class KafkaSinkFixtureTest {

    @Test
    void seesCommittedRecordsOnlyAndReportsTheOpenTransaction(@TempDir Path work) throws Exception {
        try (KafkaSinkFixture fixture = new KafkaSinkFixture("exactly-once")) {
            fixture.start();
            TestDestination destination = new TestDestination("fixture_check", work);
            assertThat(fixture.sinkOptions(destination)).containsEntry("topic", "fixture_check")
                    .containsEntry("transactional-id-prefix", "fixture_check");
            Event committed = new Event("1", "key-1", "p", 1);
            Event pending = new Event("2", "key-2", "p", 1);
            try (KafkaProducer<String, String> first = producer(fixture, "fixture_check-0");
                    KafkaProducer<String, String> second = producer(fixture, "fixture_check-1")) {
                first.beginTransaction();
                first.send(record(committed, 0));
                first.commitTransaction();
                second.beginTransaction();
                second.send(record(pending, 0));
                second.flush();

                assertThat(fixture.readCommitted(destination)).containsExactly(committed);
                // The open transaction's first record lands before or after the first one's commit
                // marker (markers are written after commitTransaction returns): offset 1 or 2.
                assertThat(fixture.leftovers(destination)).hasSize(2)
                        .contains("transaction fixture_check-1 ONGOING")
                        .anyMatch(left -> left.matches("partition fixture_check-0: last stable offset [12] below high"
                                + " watermark 3 \\(an open transaction blocks read_committed readers\\)"));

                second.abortTransaction();
                assertThat(fixture.readCommitted(destination)).containsExactly(committed);
                assertThat(fixture.leftovers(destination)).isEmpty();
            }
        }
    }

    private static KafkaProducer<String, String> producer(KafkaSinkFixture fixture, String transactionalId) {
        KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.broker().bootstrapServers(),
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId), new StringSerializer(), new StringSerializer());
        producer.initTransactions();
        return producer;
    }

    private static ProducerRecord<String, String> record(Event event, int partition) {
        return new ProducerRecord<>("fixture_check", partition, event.key(), EventFormat.toLine(event));
    }
}
