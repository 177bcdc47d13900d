package dev.onceflow.runtime.state;

import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.IOException;
import java.nio.ByteBuffer;

/** Stores a value with the version of the serializer that wrote it, as every checkpointed value is. */
public final class VersionedValues {

    private VersionedValues() {
    }

    public static <T> byte[] write(SimpleVersionedSerializer<T> serializer, T value) throws IOException {
        byte[] payload = serializer.serialize(value);
        return ByteBuffer.allocate(Integer.BYTES + payload.length).putInt(serializer.version()).put(payload).array();
    }

    public static <T> T read(SimpleVersionedSerializer<T> serializer, byte[] bytes) throws IOException {
        if (bytes.length < Integer.BYTES) {
            throw new IOException("corrupt versioned value: " + bytes.length + " bytes");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        int version = buffer.getInt();
        byte[] payload = new byte[buffer.remaining()];
        buffer.get(payload);
        return serializer.deserialize(version, payload);
    }
}
