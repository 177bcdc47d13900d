package dev.onceflow.connector.filesystem;

import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes {@link FileTransaction} handles into checkpoints.
 *
 * <ul>
 *   <li>Version 3: the sink's output directory (an int byte length + UTF-8 bytes), then version
 *       2's layout. Every path lies under the directory, or the bytes are refused as corrupt.</li>
 *   <li>Version 2: the number of part files (int), then per part file its in-progress path and
 *       final path (each an int byte length + UTF-8 bytes) and its length (long).</li>
 *   <li>Version 1 (one part file per transaction, before rolling policies): one part file without
 *       the count.</li>
 * </ul>
 *
 * <p>Versions 1 and 2 are still read, so checkpoints and savepoints of earlier builds restore.
 * Their handles' directory is the one their part files are in: every earlier build wrote part
 * files directly in the sink's output directory.
 */
public final class FileTransactionSerializer implements SimpleVersionedSerializer<FileTransaction> {

    /** The only instance; serializers are stateless (SER-4). */
    public static final FileTransactionSerializer INSTANCE = new FileTransactionSerializer();

    private static final int VERSION = 3;
    private static final int VERSION_NO_DIRECTORY = 2;
    private static final int VERSION_ONE_PART = 1;
    /** Bytes of the smallest serialized part file: two empty paths and a length. */
    private static final int MIN_PART_BYTES = Integer.BYTES * 2 + Long.BYTES;

    private FileTransactionSerializer() {
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public byte[] serialize(FileTransaction transaction) throws IOException {
        return Serializers.write(out -> {
            writeString(transaction.directory(), out);
            out.writeInt(transaction.parts().size());
            for (PartFile part : transaction.parts()) {
                writeString(part.inProgressPath(), out);
                writeString(part.finalPath(), out);
                out.writeLong(part.length());
            }
        });
    }

    @Override
    public FileTransaction deserialize(int version, byte[] serialized) throws IOException {
        if (version == VERSION_ONE_PART) {
            return Serializers.read(serialized, in -> transaction(null, List.of(readPart(in))));
        }
        if (version == VERSION_NO_DIRECTORY) {
            return Serializers.read(serialized, in -> transaction(null, readParts(in)));
        }
        Serializers.checkVersion(VERSION, version, "file transaction");
        return Serializers.read(serialized, in -> {
            String directory = readString(in);
            return transaction(directory, readParts(in));
        });
    }

    /** The handle, or an IOException if its paths are not paths or do not lie under its directory (SER-3). */
    private static FileTransaction transaction(String directory, List<PartFile> parts) throws IOException {
        try {
            return directory == null ? new FileTransaction(parts) : new FileTransaction(directory, parts);
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt file transaction: " + e.getMessage(), e);
        }
    }

    private static List<PartFile> readParts(DataInputStream in) throws IOException {
        int count = in.readInt();
        if (count < 1 || (long) count * MIN_PART_BYTES > in.available()) {
            throw new IOException("corrupt file transaction: " + count + " part files in " + in.available()
                    + " bytes");
        }
        List<PartFile> parts = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            parts.add(readPart(in));
        }
        return parts;
    }

    private static PartFile readPart(DataInputStream in) throws IOException {
        String inProgressPath = readString(in);
        String finalPath = readString(in);
        long length = in.readLong();
        if (length < 0) {
            throw new IOException("corrupt file transaction: negative length " + length);
        }
        return new PartFile(inProgressPath, finalPath, length);
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
