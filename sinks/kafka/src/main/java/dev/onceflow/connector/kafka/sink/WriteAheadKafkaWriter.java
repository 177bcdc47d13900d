package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.WriteAheadWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes completed checkpoints' segments: each in one short Kafka transaction holding its records
 * and the marker of (subtask, checkpoint) in the control topic.
 *
 * <p>A segment is always written by the transactional id of the subtask that buffered it,
 * {@code <prefix>-<subtask>-wal}, even when another subtask sends it after rescaling: creating that
 * producer ({@code initTransactions}) fences and finishes every earlier transaction of the id, so
 * when {@link ControlTopicCommitter} reads the markers no earlier write of the segment is still
 * in flight.
 */
final class WriteAheadKafkaWriter<T> implements WriteAheadWriter<T> {

    private static final Logger LOG = LoggerFactory.getLogger(WriteAheadKafkaWriter.class);

    private final KafkaSinkSettings<T> settings;
    private final KafkaRecords.Converter<T> converter;
    private final SinkContext context;
    private final String prefix;
    private final String controlTopic;
    /** One transactional producer per subtask whose segments this writer sent, by subtask. */
    private final Map<Integer, KafkaProducer<byte[], byte[]>> producers = new HashMap<>();
    private final Map<Integer, SendErrors> errors = new HashMap<>();

    WriteAheadKafkaWriter(KafkaSinkSettings<T> settings, SinkContext context) {
        this.settings = settings;
        this.converter = settings.records().converter();
        this.context = context;
        this.prefix = settings.prefix(context);
        this.controlTopic = settings.controlTopic(context);
    }

    @Override
    public boolean sendValues(Iterable<T> values, long checkpointId, long timestamp) {
        return sendValues(values, context.subtaskIndex(), checkpointId, timestamp);
    }

    /** Records and marker in one transaction (WAL-3). A failure fails the job; recovery re-reads the markers. */
    @Override
    public boolean sendValues(Iterable<T> values, int subtaskIndex, long checkpointId, long timestamp) {
        KafkaProducer<byte[], byte[]> producer = producer(subtaskIndex);
        SendErrors sendErrors = errors.get(subtaskIndex);
        try {
            producer.beginTransaction();
            for (T record : values) {
                ProducerRecord<byte[], byte[]> converted = converter.toRecord(record);
                if (converted != null) {
                    producer.send(converted, sendErrors);
                }
            }
            producer.send(ControlMarkers.marker(controlTopic, prefix, subtaskIndex, checkpointId), sendErrors);
            producer.flush();
            sendErrors.check(settings.records().topic());
            producer.commitTransaction();
            return true;
        } catch (RuntimeException e) {
            // Whether the commit happened is not known here; the producer is discarded, and the
            // next attempt's initTransactions finishes the transaction before the markers are read.
            discard(subtaskIndex);
            throw new IllegalStateException("writing the segment of subtask " + subtaskIndex + ", checkpoint "
                    + checkpointId + " to " + settings.records().topic() + " failed: " + e, e);
        }
    }

    private KafkaProducer<byte[], byte[]> producer(int subtaskIndex) {
        KafkaProducer<byte[], byte[]> existing = producers.get(subtaskIndex);
        if (existing != null) {
            return existing;
        }
        String id = TransactionalIds.writeAhead(prefix, subtaskIndex);
        KafkaProducer<byte[], byte[]> producer = settings.producer().openTransactional(id);
        producers.put(subtaskIndex, producer);
        errors.put(subtaskIndex, new SendErrors());
        return producer;
    }

    private void discard(int subtaskIndex) {
        KafkaProducer<byte[], byte[]> producer = producers.remove(subtaskIndex);
        errors.remove(subtaskIndex);
        if (producer != null) {
            producer.close(Duration.ZERO);
        }
    }

    @Override
    public void close() {
        for (KafkaProducer<byte[], byte[]> producer : producers.values()) {
            producer.close(Duration.ofSeconds(5)); // nothing of ours is open between segments
        }
        producers.clear();
        LOG.debug("write-ahead writer of subtask {} closed", context.subtaskIndex());
    }
}
