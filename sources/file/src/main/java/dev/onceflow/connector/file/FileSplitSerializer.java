package dev.onceflow.connector.file;

import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes {@link FileSplit}s into checkpoints. Version 1: path (int byte length + UTF-8 bytes),
 * offset (long).
 */
public final class FileSplitSerializer implements SimpleVersionedSerializer<FileSplit> {

    /** The only instance; serializers are stateless (SER-4). */
    public static final FileSplitSerializer INSTANCE = new FileSplitSerializer();

    private static final int VERSION = 1;

    private FileSplitSerializer() {
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public byte[] serialize(FileSplit split) throws IOException {
        return Serializers.write(out -> write(split, out));
    }

    @Override
    public FileSplit deserialize(int version, byte[] serialized) throws IOException {
        Serializers.checkVersion(VERSION, version, "file split");
        return Serializers.read(serialized, FileSplitSerializer::read);
    }

    static void write(FileSplit split, DataOutputStream out) throws IOException {
        writeString(split.path(), out);
        out.writeLong(split.offset());
    }

    static FileSplit read(DataInputStream in) throws IOException {
        String path = readString(in);
        long offset = in.readLong();
        if (offset < 0) {
            throw new IOException("corrupt file split: negative offset " + offset + " for " + path);
        }
        return new FileSplit(path, offset);
    }

    /** Length-prefixed UTF-8: unlike {@code writeUTF}, not limited to 64 KiB, and length-checked on read. */
    static void writeString(String value, DataOutputStream out) throws IOException {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    static String readString(DataInputStream in) throws IOException {
        byte[] bytes = new byte[Serializers.readLength(in, "file path")];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
