package dev.onceflow.connector.kafka;

import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * Writes {@link KafkaEnumeratorState} into checkpoints. Version 1: the number of unassigned splits
 * (int) and each split as in {@link KafkaSplitSerializer} version 1, then the number of discovered
 * partitions (int) and each as topic (int byte length + UTF-8 bytes) and partition (int), sorted
 * so equal states give equal bytes.
 */
public final class KafkaEnumeratorStateSerializer implements SimpleVersionedSerializer<KafkaEnumeratorState> {

    /** The only instance; serializers are stateless (SER-4). */
    public static final KafkaEnumeratorStateSerializer INSTANCE = new KafkaEnumeratorStateSerializer();

    private static final int VERSION = 1;
    /** Bytes of the smallest serialized split / partition, to bound counts read from corrupt input. */
    private static final int MIN_SPLIT_BYTES = 4 + 4 + 8 + 8;
    private static final int MIN_PARTITION_BYTES = 4 + 4;

    private KafkaEnumeratorStateSerializer() {
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public byte[] serialize(KafkaEnumeratorState state) throws IOException {
        List<TopicPartition> sorted = new ArrayList<>(state.discovered());
        sorted.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        return Serializers.write(out -> {
            out.writeInt(state.unassigned().size());
            for (KafkaSplit split : state.unassigned()) {
                KafkaSplitSerializer.write(split, out);
            }
            out.writeInt(sorted.size());
            for (TopicPartition partition : sorted) {
                KafkaSplitSerializer.writeTopic(partition.topic(), out);
                out.writeInt(partition.partition());
            }
        });
    }

    @Override
    public KafkaEnumeratorState deserialize(int version, byte[] serialized) throws IOException {
        Serializers.checkVersion(VERSION, version, "kafka enumerator state");
        return Serializers.read(serialized, in -> {
            int splitCount = count(in.readInt(), in.available(), MIN_SPLIT_BYTES, "unassigned splits");
            List<KafkaSplit> unassigned = new ArrayList<>(splitCount);
            for (int i = 0; i < splitCount; i++) {
                unassigned.add(KafkaSplitSerializer.read(in));
            }
            int partitionCount = count(in.readInt(), in.available(), MIN_PARTITION_BYTES, "discovered partitions");
            Set<TopicPartition> discovered = new HashSet<>();
            for (int i = 0; i < partitionCount; i++) {
                String topic = KafkaSplitSerializer.readTopic(in);
                int partition = in.readInt();
                if (partition < 0) {
                    throw new IOException("corrupt kafka enumerator state: negative partition " + partition);
                }
                discovered.add(new TopicPartition(topic, partition));
            }
            return new KafkaEnumeratorState(unassigned, discovered);
        });
    }

    /** A count read from the bytes, checked against what is left so corrupt input cannot allocate much. */
    private static int count(int count, int available, int minBytesEach, String what) throws IOException {
        if (count < 0 || (long) count * minBytesEach > available) {
            throw new IOException("corrupt kafka enumerator state: " + count + " " + what + " with " + available
                    + " bytes left");
        }
        return count;
    }
}
