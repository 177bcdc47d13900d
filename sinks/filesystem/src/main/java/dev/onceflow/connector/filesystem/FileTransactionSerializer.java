package dev.onceflow.connector.filesystem;

import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes {@link FileTransaction} handles into checkpoints. Version 1: in-progress path and final
 * path (each an int byte length + UTF-8 bytes), then the length (long).
 */
public final class FileTransactionSerializer implements SimpleVersionedSerializer<FileTransaction> {

    /** The only instance; serializers are stateless (SER-4). */
    public static final FileTransactionSerializer INSTANCE = new FileTransactionSerializer();

    private static final int VERSION = 1;

    private FileTransactionSerializer() {
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public byte[] serialize(FileTransaction transaction) throws IOException {
        return Serializers.write(out -> {
            writeString(transaction.inProgressPath(), out);
            writeString(transaction.finalPath(), out);
            out.writeLong(transaction.length());
        });
    }

    @Override
    public FileTransaction deserialize(int version, byte[] serialized) throws IOException {
        Serializers.checkVersion(VERSION, version, "file transaction");
        return Serializers.read(serialized, in -> {
            String inProgressPath = readString(in);
            String finalPath = readString(in);
            long length = in.readLong();
            if (length < 0) {
                throw new IOException("corrupt file transaction: negative length " + length);
            }
            return new FileTransaction(inProgressPath, finalPath, length);
        });
    }

    private static void writeString(String value, DataOutputStream out) throws IOException {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static String readString(DataInputStream in) throws IOException {
        byte[] bytes = new byte[Serializers.readLength(in, "file transaction path")];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
