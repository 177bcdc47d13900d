package dev.onceflow.connector.kafka.sink;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * Tells how a transaction ended by looking at one of its records as a {@code read_committed}
 * reader does: a committed transaction's record is returned at its offset; an aborted
 * transaction's record is skipped; while the transaction (or an earlier one on that partition) is
 * open, the partition's last stable offset has not passed the record yet.
 *
 * <p>This is what readers see, so it is the authority, whatever the broker's transaction
 * coordinator remembers about producer epochs.
 */
final class TransactionProbe {

    /** What a {@code read_committed} reader sees at the probed position. */
    enum Outcome {
        /** The record is visible: the transaction committed. */
        COMMITTED,
        /** The record is skipped: the transaction was aborted and its records are gone. */
        ABORTED,
        /** The last stable offset has not passed the record: the transaction is still open. */
        OPEN,
        /** The record cannot be read any more (deleted by retention) or the reader timed out. */
        UNKNOWN
    }

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    private TransactionProbe() {
    }

    /**
     * @param readerSettings settings of a {@code read_committed} consumer without a group
     */
    static Outcome outcome(Map<String, Object> readerSettings, KafkaTransaction.RecordPosition position) {
        Map<String, Object> settings = new java.util.HashMap<>(readerSettings);
        // Never jump: a record deleted by retention must read as UNKNOWN, not as skipped.
        settings.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        settings.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1);
        TopicPartition partition = new TopicPartition(position.topic(), position.partition());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings)) {
            consumer.assign(List.of(partition));
            long lastStable = consumer.endOffsets(List.of(partition), READ_TIMEOUT).get(partition);
            if (lastStable <= position.offset()) {
                return Outcome.OPEN;
            }
            consumer.seek(partition, position.offset());
            long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200)).records(partition)) {
                    return record.offset() == position.offset() ? Outcome.COMMITTED : Outcome.ABORTED;
                }
                if (consumer.position(partition, READ_TIMEOUT) > position.offset()) {
                    return Outcome.ABORTED; // stepped over it: aborted records are filtered out
                }
            }
            return Outcome.UNKNOWN;
        } catch (KafkaException e) {
            return Outcome.UNKNOWN;
        }
    }
}
