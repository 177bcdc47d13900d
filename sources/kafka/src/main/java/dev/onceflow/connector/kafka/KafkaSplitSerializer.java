package dev.onceflow.connector.kafka;

import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes {@link KafkaSplit}s into checkpoints. Version 1: topic (int byte length + UTF-8 bytes),
 * partition (int), offset (long), stopping offset (long).
 */
public final class KafkaSplitSerializer implements SimpleVersionedSerializer<KafkaSplit> {

    /** The only instance; serializers are stateless (SER-4). */
    public static final KafkaSplitSerializer INSTANCE = new KafkaSplitSerializer();

    private static final int VERSION = 1;

    private KafkaSplitSerializer() {
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public byte[] serialize(KafkaSplit split) throws IOException {
        return Serializers.write(out -> write(split, out));
    }

    @Override
    public KafkaSplit deserialize(int version, byte[] serialized) throws IOException {
        Serializers.checkVersion(VERSION, version, "kafka split");
        return Serializers.read(serialized, KafkaSplitSerializer::read);
    }

    static void write(KafkaSplit split, DataOutputStream out) throws IOException {
        writeTopic(split.topic(), out);
        out.writeInt(split.partition());
        out.writeLong(split.offset());
        out.writeLong(split.stoppingOffset());
    }

    static KafkaSplit read(DataInputStream in) throws IOException {
        String topic = readTopic(in);
        int partition = in.readInt();
        long offset = in.readLong();
        long stoppingOffset = in.readLong();
        try {
            return new KafkaSplit(topic, partition, offset, stoppingOffset);
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt kafka split: " + e.getMessage(), e);
        }
    }

    static void writeTopic(String topic, DataOutputStream out) throws IOException {
        byte[] bytes = topic.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    static String readTopic(DataInputStream in) throws IOException {
        byte[] bytes = new byte[Serializers.readLength(in, "kafka topic name")];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
