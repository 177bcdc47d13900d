package dev.onceflow.connector.kafka.sink;

import dev.onceflow.connector.kafka.sink.ProducerInternals.ProducerIdAndEpoch;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Runs inside a class loader holding one kafka-clients release (see
 * {@code ProducerInternalsVersionsTest}): pre-commits a transaction with one producer, abandons it
 * as a crash would, and commits it from a second producer through {@link ProducerInternals}. Uses
 * only kafka-clients, {@link ProducerInternals} and {@link KafkaTransaction}, which that loader
 * has.
 */
public final class ResumeInIsolation {

    private ResumeInIsolation() {
    }

    /** @return the client version the loader holds, as the internals read it */
    public static String preCommitAbandonAndResume(String bootstrapServers, String topic, String transactionalId,
            int records) throws Exception {
        ProducerInternals internals = ProducerInternals.load();
        Map<String, Object> settings = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        KafkaProducer<byte[], byte[]> first = new KafkaProducer<>(settings);
        first.initTransactions();
        first.beginTransaction();
        RecordMetadata written = null;
        for (int i = 0; i < records; i++) {
            RecordMetadata m = first.send(new ProducerRecord<>(topic, ("r" + i).getBytes(StandardCharsets.UTF_8))).get();
            written = written == null ? m : written;
        }
        first.flush();
        ProducerIdAndEpoch ids = internals.producerIdAndEpoch(first);
        first.close(Duration.ZERO); // as after a crash: the transaction stays open

        KafkaTransaction handle = new KafkaTransaction(transactionalId, ids.producerId(), ids.epoch(), 1, records,
                new KafkaTransaction.RecordPosition(topic, written.partition(), written.offset()));
        try (KafkaProducer<byte[], byte[]> second = new KafkaProducer<>(settings)) {
            second.partitionsFor(topic);
            internals.resume(second, handle);
            second.commitTransaction();
        }
        return ProducerInternals.clientVersion();
    }
}
