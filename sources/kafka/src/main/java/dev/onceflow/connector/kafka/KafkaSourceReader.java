package dev.onceflow.connector.kafka;

import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.source.InputStatus;
import dev.onceflow.spi.source.ReaderOutput;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceReaderContext;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the partitions assigned to one subtask with one {@link KafkaConsumer}, which lives and is
 * used on the task thread only (the consumer is not thread-safe, and the SPI calls every reader
 * method on that thread).
 *
 * <p><b>Polling.</b> {@link #pollNext} waits at most {@value #POLL_TIMEOUT_MILLIS} ms in
 * {@code KafkaConsumer.poll} and emits at most {@value #MAX_RECORDS_PER_POLL} records per call,
 * so barriers and notifications wait no longer than that. Records the consumer returned but the
 * reader has not emitted yet are kept for the next call.
 *
 * <p><b>Positions.</b> A split's position is the offset after its last emitted record. Once every
 * record the consumer returned is emitted, the position moves on to the consumer's own position,
 * which also skips transaction markers and aborted records (never returned under
 * {@code read_committed}). That is what lets a bounded split whose last offset is a commit marker
 * finish: it is finished when its position reaches its stopping offset; records are never counted.
 *
 * <p><b>Failures, never skips.</b> A record that its {@link KafkaRecordDecoding} cannot decode (no
 * value, bytes not in the format, a field that does not fit) fails the reader, naming its partition
 * and offset. An offset out of
 * range (deleted by retention, topic recreated) fails the reader too.
 */
final class KafkaSourceReader<T> implements SourceReader<T, KafkaSplit> {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaSourceReader.class);

    /** Events per poll: small enough that the task thread gets back to its mailbox quickly. */
    static final int MAX_RECORDS_PER_POLL = 500;
    /** Longest wait in {@code KafkaConsumer.poll}: the SPI allows a reader to block a few milliseconds. */
    static final long POLL_TIMEOUT_MILLIS = 5;

    private final SourceReaderContext context;
    private final KafkaClientProperties client;
    private final KafkaRecordDecoding<T> decoding;
    private final KafkaRecordDecoding.Decoder<T> decoder;
    /** Unfinished splits with their current positions, by partition. */
    private final Map<TopicPartition, KafkaSplit> splits = new LinkedHashMap<>();
    /** Positions snapshotted per checkpoint, committed to the group when the checkpoint completes. */
    private final NavigableMap<Long, Map<TopicPartition, OffsetAndMetadata>> uncommitted = new TreeMap<>();
    private KafkaConsumer<byte[], byte[]> consumer;
    private Iterator<ConsumerRecord<byte[], byte[]>> returned;
    private boolean noMoreSplits;

    KafkaSourceReader(SourceReaderContext context, KafkaClientProperties client, KafkaRecordDecoding<T> decoding) {
        this.context = context;
        this.client = client;
        this.decoding = decoding;
        this.decoder = decoding.newDecoder();
    }

    @Override
    public void start() {
        // Nothing to ask for: the enumerator pushes partitions when this reader registers.
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws IOException {
        if (splits.isEmpty()) {
            return noMoreSplits ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
        }
        if (returned == null) {
            returned = poll().iterator();
        }
        int emitted = 0;
        while (emitted < MAX_RECORDS_PER_POLL && returned.hasNext()) {
            ConsumerRecord<byte[], byte[]> record = returned.next();
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            KafkaSplit split = splits.get(partition);
            // Records of a finished split, and those at or past a bounded split's end, are not its input.
            if (split == null || record.offset() < split.offset() || record.offset() >= split.stoppingOffset()) {
                continue;
            }
            // All rows of one record (an update's two, FMT-8) go out before its offset is passed,
            // so no checkpoint falls between them.
            for (T event : decode(record, partition, output)) {
                // The broker's timestamp (create or append time) becomes the record's event time; -1
                // means the record has none (a very old message format).
                if (record.timestamp() >= 0) {
                    output.collect(event, record.timestamp());
                } else {
                    output.collect(event);
                }
            }
            // A rejected record's offset is passed too: it is read once, like an emitted one.
            splits.put(partition, split.withOffset(record.offset() + 1));
            emitted++;
        }
        boolean more = returned.hasNext();
        if (!more) {
            returned = null;
            advanceToConsumerPositions();
        }
        dropFinishedSplits();
        if (more || emitted > 0) {
            return InputStatus.MORE_AVAILABLE;
        }
        return splits.isEmpty() && noMoreSplits ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
    }

    private Iterable<ConsumerRecord<byte[], byte[]>> poll() throws IOException {
        try {
            return consumer.poll(Duration.ofMillis(POLL_TIMEOUT_MILLIS));
        } catch (OffsetOutOfRangeException e) {
            throw new IOException("Kafka offsets out of range " + e.offsetOutOfRangePartitions() + " (records deleted "
                    + "by retention, or the topic was recreated); the source never jumps to another offset", e);
        }
    }

    /**
     * Called when every record the consumer returned was emitted: the consumer's position is then
     * after the last of them and after any transaction markers and aborted records behind it.
     */
    private void advanceToConsumerPositions() {
        for (Map.Entry<TopicPartition, KafkaSplit> entry : splits.entrySet()) {
            KafkaSplit split = entry.getValue();
            long consumerPosition;
            try {
                // Zero wait: a position being revalidated (leader change) is simply not used yet.
                consumerPosition = consumer.position(entry.getKey(), Duration.ZERO);
            } catch (TimeoutException e) {
                continue;
            }
            long position = Math.min(consumerPosition, split.stoppingOffset());
            if (position > split.offset()) {
                entry.setValue(split.withOffset(position));
            }
        }
    }

    private void dropFinishedSplits() {
        if (splits.values().removeIf(KafkaSplit::isFinished)) {
            consumer.assign(List.copyOf(splits.keySet()));
        }
    }

    /** The record decoded, or none once it was handed to the runtime as a bad record (SRC-6). */
    private List<T> decode(ConsumerRecord<byte[], byte[]> record, TopicPartition partition, ReaderOutput<T> output)
            throws IOException {
        try {
            return decoder.decode(record);
        } catch (MalformedRecordException e) {
            // Never skip a bad record: the runtime fails the job here, or writes it to the dead letters.
            output.reject("offset " + record.offset() + " of partition " + partition + " (format " + decoding + ")",
                    record.value() == null ? new byte[0] : record.value(), e.getMessage());
            return List.of();
        }
    }

    @Override
    public List<KafkaSplit> snapshotState(long checkpointId) {
        if (client.groupId() != null && !splits.isEmpty()) {
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            splits.forEach((partition, split) -> offsets.put(partition, new OffsetAndMetadata(split.offset())));
            uncommitted.put(checkpointId, offsets);
        }
        return new ArrayList<>(splits.values());
    }

    /**
     * Commits the positions of the completed checkpoint to the consumer group, for monitoring only:
     * a restore always uses the checkpointed positions. A failed commit is logged, never fatal.
     */
    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        Map.Entry<Long, Map<TopicPartition, OffsetAndMetadata>> latest = uncommitted.floorEntry(checkpointId);
        if (latest == null || consumer == null) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = latest.getValue();
        uncommitted.headMap(checkpointId, true).clear();
        consumer.commitAsync(offsets, (committed, failure) -> {
            if (failure != null) {
                LOG.warn("Kafka source subtask {}: could not commit the offsets of checkpoint {} to group {} "
                        + "(monitoring only, positions are in the checkpoint): {}", context.subtaskIndex(),
                        checkpointId, client.groupId(), failure.toString());
            }
        });
    }

    @Override
    public void addSplits(List<KafkaSplit> added) {
        List<KafkaSplit> toRead = added.stream().filter(s -> !s.isFinished()).toList();
        if (toRead.isEmpty()) {
            return;
        }
        if (consumer == null) {
            consumer = new KafkaConsumer<>(client.consumer());
        }
        for (KafkaSplit split : toRead) {
            splits.put(split.topicPartition(), split);
        }
        consumer.assign(List.copyOf(splits.keySet()));
        for (KafkaSplit split : toRead) {
            consumer.seek(split.topicPartition(), split.offset());
        }
        LOG.info("Kafka source subtask {} reads {}", context.subtaskIndex(), toRead);
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
    }

    /**
     * Closes the consumer. A cancelled job interrupts the task thread; the consumer would then
     * log its interrupted close as an error with a stack trace, so the interrupt is set aside
     * while it closes and restored afterwards.
     */
    @Override
    public void close() {
        if (consumer != null) {
            boolean interrupted = Thread.interrupted();
            try {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            } finally {
                consumer = null;
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
