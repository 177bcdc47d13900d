package dev.onceflow.runtime.checkpoint;

import dev.onceflow.runtime.state.NativeKeyedState;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.spi.serialization.Serializers;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Binary format of one task's state file: the snapshots of the operators in its chain, by uid. */
final class TaskStateCodec {

    /**
     * 2 added union lists after the subtask lists; 3 added keyed state in a backend's own format
     * after the key groups. Files of versions 1 and 2 are still read.
     */
    private static final int FORMAT_VERSION = 3;

    private TaskStateCodec() {
    }

    static byte[] encode(Map<String, OperatorSnapshot> operators) throws IOException {
        return Serializers.write(out -> encode(operators, out));
    }

    static void encode(Map<String, OperatorSnapshot> operators, DataOutputStream out) throws IOException {
        out.writeInt(FORMAT_VERSION);
        out.writeInt(operators.size());
        for (Map.Entry<String, OperatorSnapshot> entry : operators.entrySet()) {
            out.writeUTF(entry.getKey());
            writeLists(out, entry.getValue().listState());
            writeLists(out, entry.getValue().subtaskState());
            writeLists(out, entry.getValue().unionState());
            out.writeInt(entry.getValue().keyedState().size());
            for (Map.Entry<Integer, byte[]> group : entry.getValue().keyedState().entrySet()) {
                out.writeInt(group.getKey());
                writeBytes(out, group.getValue());
            }
            NativeKeyedState nativeState = entry.getValue().nativeKeyedState();
            out.writeBoolean(nativeState != null);
            if (nativeState != null) {
                out.writeUTF(nativeState.backend());
                out.writeInt(nativeState.firstGroup());
                out.writeInt(nativeState.endGroup());
                writeBytes(out, nativeState.handle());
                out.writeInt(nativeState.sharedFiles().size());
                for (String file : nativeState.sharedFiles()) {
                    out.writeUTF(file);
                }
            }
        }
    }

    /** The exact number of bytes {@link #encode(Map, DataOutputStream)} writes. */
    static long encodedLength(Map<String, OperatorSnapshot> operators) {
        long length = Integer.BYTES * 2;
        for (Map.Entry<String, OperatorSnapshot> entry : operators.entrySet()) {
            length += utfLength(entry.getKey());
            length += listsLength(entry.getValue().listState()) + listsLength(entry.getValue().subtaskState())
                    + listsLength(entry.getValue().unionState());
            length += Integer.BYTES;
            if (entry.getValue().keyedState() instanceof StoredKeyGroups stored) {
                // Blobs a backend wrote to a local file: measured without reading them.
                for (int group : stored.keySet()) {
                    length += Integer.BYTES * 2 + stored.length(group);
                }
            } else {
                for (byte[] group : entry.getValue().keyedState().values()) {
                    length += Integer.BYTES * 2 + group.length;
                }
            }
            length += 1;
            NativeKeyedState nativeState = entry.getValue().nativeKeyedState();
            if (nativeState != null) {
                length += utfLength(nativeState.backend()) + Integer.BYTES * 3 + nativeState.handle().length
                        + Integer.BYTES;
                for (String file : nativeState.sharedFiles()) {
                    length += utfLength(file);
                }
            }
        }
        return length;
    }

    private static long listsLength(Map<String, List<byte[]>> lists) {
        long length = Integer.BYTES;
        for (Map.Entry<String, List<byte[]>> entry : lists.entrySet()) {
            length += utfLength(entry.getKey()) + Integer.BYTES;
            for (byte[] value : entry.getValue()) {
                length += Integer.BYTES + value.length;
            }
        }
        return length;
    }

    /** What {@link DataOutputStream#writeUTF} writes for {@code text}: a 2-byte length and modified UTF-8. */
    private static int utfLength(String text) {
        int length = 2;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            length += c >= 0x0001 && c <= 0x007F ? 1 : c <= 0x07FF ? 2 : 3;
        }
        return length;
    }

    /**
     * Reads a task state file's payload as it streams past. Key group blobs are not read into
     * memory: {@code blobs} turns each one's place in the file into a {@link StoredKeyGroups.Blob}
     * that reads it when a backend restores it.
     */
    static Map<String, OperatorSnapshot> decode(ChecksummedFiles.Payload payload, BlobLocator blobs)
            throws IOException {
        DataInputStream in = payload.in();
        int format = in.readInt();
        if (format < 1 || format > FORMAT_VERSION) {
            throw new IOException("cannot read a task state file of format " + format + "; this build reads 1 to "
                    + FORMAT_VERSION);
        }
        int count = readLength(payload, "operator count");
        Map<String, OperatorSnapshot> operators = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String uid = in.readUTF();
            Map<String, List<byte[]>> lists = readLists(payload);
            Map<String, List<byte[]>> subtaskLists = readLists(payload);
            Map<String, List<byte[]>> unionLists = format >= 2 ? readLists(payload) : Map.of();
            int groups = readLength(payload, "key group count");
            StoredKeyGroups.Builder keyed = new StoredKeyGroups.Builder();
            byte[] scratch = new byte[1 << 16];
            for (int g = 0; g < groups; g++) {
                int group = in.readInt();
                int length = readLength(payload, "key group " + group);
                long offset = ChecksummedFiles.PAYLOAD_OFFSET + payload.position();
                // Read through for the file's checksum anyway: keep the group's own, so the bytes
                // read again at restore are checked to be the bytes verified now.
                keyed.put(group, blobs.locate(offset, length, checksumOf(in, length, scratch)));
            }
            NativeKeyedState nativeState = null;
            if (format >= 3 && in.readBoolean()) {
                String backend = in.readUTF();
                int first = in.readInt();
                int end = in.readInt();
                byte[] handle = readBytes(payload);
                int files = readLength(payload, "shared file count");
                List<String> shared = new ArrayList<>(Math.min(files, 1 << 10));
                for (int f = 0; f < files; f++) {
                    shared.add(CheckpointStorage.checkSharedReference(in.readUTF()));
                }
                if (first < 0 || end < first) {
                    throw new IOException("keyed state of operator " + uid + " has key groups " + first + ".." + end);
                }
                nativeState = new NativeKeyedState(backend, first, end, handle, shared);
            }
            operators.put(uid, new OperatorSnapshot(lists, subtaskLists, keyed.build(), unionLists, nativeState));
        }
        return operators;
    }

    /**
     * Where a key group blob of {@code length} bytes at {@code offset} in the file, with CRC32C
     * {@code checksum}, can be read later.
     */
    @FunctionalInterface
    interface BlobLocator {
        StoredKeyGroups.Blob locate(long offset, int length, int checksum);
    }

    /** Consumes {@code length} bytes and returns their CRC32C. */
    private static int checksumOf(DataInputStream in, int length, byte[] scratch) throws IOException {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        int left = length;
        while (left > 0) {
            int n = in.read(scratch, 0, Math.min(scratch.length, left));
            if (n < 0) {
                throw new java.io.EOFException("the file ended inside a key group");
            }
            crc.update(scratch, 0, n);
            left -= n;
        }
        return (int) crc.getValue();
    }

    /** A length or count, at most the bytes the payload has left (a corrupt one fails here, not in an allocation). */
    private static int readLength(ChecksummedFiles.Payload payload, String what) throws IOException {
        int length = payload.in().readInt();
        if (length < 0 || length > payload.remaining()) {
            throw new IOException("corrupt " + what + ": length " + length + " with " + payload.remaining()
                    + " bytes left");
        }
        return length;
    }

    private static void writeLists(DataOutputStream out, Map<String, List<byte[]>> lists) throws IOException {
        out.writeInt(lists.size());
        for (Map.Entry<String, List<byte[]>> entry : lists.entrySet()) {
            out.writeUTF(entry.getKey());
            out.writeInt(entry.getValue().size());
            for (byte[] value : entry.getValue()) {
                writeBytes(out, value);
            }
        }
    }

    private static Map<String, List<byte[]>> readLists(ChecksummedFiles.Payload payload) throws IOException {
        int count = readLength(payload, "state list count");
        Map<String, List<byte[]>> lists = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String name = payload.in().readUTF();
            int size = readLength(payload, "state list " + name);
            List<byte[]> values = new ArrayList<>(Math.min(size, 1 << 10));
            for (int v = 0; v < size; v++) {
                values.add(readBytes(payload));
            }
            lists.put(name, values);
        }
        return lists;
    }

    private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static byte[] readBytes(ChecksummedFiles.Payload payload) throws IOException {
        byte[] bytes = new byte[readLength(payload, "state value")];
        payload.in().readFully(bytes);
        return bytes;
    }
}
