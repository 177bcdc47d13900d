package dev.onceflow.connector.postgrescdc;

import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.IOException;

/**
 * Writes {@link ChangeSplit}s into checkpoints. Version 1: a boolean (whether there is an
 * offset), then the offset JSON as modified UTF-8 ({@code writeUTF}).
 */
final class ChangeSplitSerializer implements SimpleVersionedSerializer<ChangeSplit> {

    static final ChangeSplitSerializer INSTANCE = new ChangeSplitSerializer();

    private static final int VERSION = 1;

    private ChangeSplitSerializer() {
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public byte[] serialize(ChangeSplit split) throws IOException {
        return Serializers.write(out -> {
            out.writeBoolean(split.offset() != null);
            if (split.offset() != null) {
                out.writeUTF(split.offset());
            }
        });
    }

    @Override
    public ChangeSplit deserialize(int version, byte[] serialized) throws IOException {
        Serializers.checkVersion(VERSION, version, "postgres-cdc split");
        return Serializers.read(serialized, in -> new ChangeSplit(in.readBoolean() ? in.readUTF() : null));
    }
}
