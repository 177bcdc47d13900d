package dev.onceflow.connector.datagen;

import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes {@link DatagenEnumeratorState} into checkpoints. Version 1: the number of unassigned
 * splits (int), then each split in the format of {@link DatagenSplitSerializer} version 1.
 */
public final class DatagenEnumeratorStateSerializer implements SimpleVersionedSerializer<DatagenEnumeratorState> {

    /** The only instance; serializers are stateless (SER-4). */
    public static final DatagenEnumeratorStateSerializer INSTANCE = new DatagenEnumeratorStateSerializer();

    private static final int VERSION = 1;

    private DatagenEnumeratorStateSerializer() {
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public byte[] serialize(DatagenEnumeratorState state) throws IOException {
        return Serializers.write(out -> {
            out.writeInt(state.unassigned().size());
            for (DatagenSplit split : state.unassigned()) {
                DatagenSplitSerializer.write(split, out);
            }
        });
    }

    @Override
    public DatagenEnumeratorState deserialize(int version, byte[] serialized) throws IOException {
        Serializers.checkVersion(VERSION, version, "datagen enumerator state");
        return Serializers.read(serialized, in -> {
            int count = Serializers.readLength(in, "datagen enumerator state");
            List<DatagenSplit> splits = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                splits.add(DatagenSplitSerializer.read(in));
            }
            return new DatagenEnumeratorState(splits);
        });
    }
}
