package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes {@link KafkaTransaction} handles into checkpoints. Version 1: the transactional id (int
 * byte length + UTF-8 bytes), producer id (long), epoch (short), checkpoint id (long), record
 * count (long); when the count is positive, the probe record's topic (int length + UTF-8),
 * partition (int) and offset (long).
 */
public final class KafkaTransactionSerializer implements SimpleVersionedSerializer<KafkaTransaction> {

    /** The only instance; serializers are stateless (SER-4). */
    public static final KafkaTransactionSerializer INSTANCE = new KafkaTransactionSerializer();

    private static final int VERSION = 1;

    private KafkaTransactionSerializer() {
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public byte[] serialize(KafkaTransaction transaction) throws IOException {
        return Serializers.write(out -> {
            byte[] id = transaction.transactionalId().getBytes(StandardCharsets.UTF_8);
            out.writeInt(id.length);
            out.write(id);
            out.writeLong(transaction.producerId());
            out.writeShort(transaction.epoch());
            out.writeLong(transaction.checkpointId());
            out.writeLong(transaction.records());
            if (transaction.probe() != null) {
                byte[] topic = transaction.probe().topic().getBytes(StandardCharsets.UTF_8);
                out.writeInt(topic.length);
                out.write(topic);
                out.writeInt(transaction.probe().partition());
                out.writeLong(transaction.probe().offset());
            }
        });
    }

    @Override
    public KafkaTransaction deserialize(int version, byte[] serialized) throws IOException {
        Serializers.checkVersion(VERSION, version, "kafka transaction");
        return Serializers.read(serialized, in -> {
            byte[] id = new byte[Serializers.readLength(in, "kafka transactional id")];
            in.readFully(id);
            long producerId = in.readLong();
            short epoch = in.readShort();
            long checkpointId = in.readLong();
            long records = in.readLong();
            if (records < 0) {
                throw new IOException("corrupt kafka transaction: negative record count " + records);
            }
            KafkaTransaction.RecordPosition probe = null;
            if (records > 0) {
                byte[] topic = new byte[Serializers.readLength(in, "kafka probe topic")];
                in.readFully(topic);
                int partition = in.readInt();
                long offset = in.readLong();
                if (partition < 0 || offset < 0) {
                    throw new IOException("corrupt kafka transaction: probe partition " + partition + ", offset " + offset);
                }
                probe = new KafkaTransaction.RecordPosition(new String(topic, StandardCharsets.UTF_8), partition, offset);
            }
            return new KafkaTransaction(new String(id, StandardCharsets.UTF_8), producerId, epoch, checkpointId,
                    records, probe);
        });
    }
}
