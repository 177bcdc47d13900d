package dev.onceflow.connector.datagen;

import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * Writes {@link DatagenSplit}s into checkpoints. Version 1: index (int), split count (int),
 * next (long), end (long).
 */
public final class DatagenSplitSerializer implements SimpleVersionedSerializer<DatagenSplit> {

    /** The only instance; serializers are stateless (SER-4). */
    public static final DatagenSplitSerializer INSTANCE = new DatagenSplitSerializer();

    private static final int VERSION = 1;

    private DatagenSplitSerializer() {
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public byte[] serialize(DatagenSplit split) throws IOException {
        return Serializers.write(out -> write(split, out));
    }

    @Override
    public DatagenSplit deserialize(int version, byte[] serialized) throws IOException {
        Serializers.checkVersion(VERSION, version, "datagen split");
        return Serializers.read(serialized, DatagenSplitSerializer::read);
    }

    static void write(DatagenSplit split, DataOutputStream out) throws IOException {
        out.writeInt(split.index());
        out.writeInt(split.splitCount());
        out.writeLong(split.next());
        out.writeLong(split.end());
    }

    static DatagenSplit read(DataInputStream in) throws IOException {
        int index = in.readInt();
        int splitCount = in.readInt();
        long next = in.readLong();
        long end = in.readLong();
        try {
            return new DatagenSplit(index, splitCount, next, end);
        } catch (IllegalArgumentException e) {
            // Checkpoint bytes are input: an impossible split is corruption, reported as such (SER-3).
            throw new IOException("corrupt datagen split: " + e.getMessage(), e);
        }
    }
}
