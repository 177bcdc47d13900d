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
import java.util.SortedMap;
import java.util.TreeMap;

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
            for (byte[] group : entry.getValue().keyedState().values()) {
                length += Integer.BYTES * 2 + group.length;
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

    static Map<String, OperatorSnapshot> decode(byte[] bytes) throws IOException {
        return Serializers.read(bytes, in -> {
            int format = in.readInt();
            if (format < 1 || format > FORMAT_VERSION) {
                throw new IOException("cannot read a task state file of format " + format + "; this build reads 1 to "
                        + FORMAT_VERSION);
            }
            int count = Serializers.readLength(in, "operator count");
            Map<String, OperatorSnapshot> operators = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                String uid = in.readUTF();
                Map<String, List<byte[]>> lists = readLists(in);
                Map<String, List<byte[]>> subtaskLists = readLists(in);
                Map<String, List<byte[]>> unionLists = format >= 2 ? readLists(in) : Map.of();
                int groups = Serializers.readLength(in, "key group count");
                SortedMap<Integer, byte[]> keyed = new TreeMap<>();
                for (int g = 0; g < groups; g++) {
                    keyed.put(in.readInt(), readBytes(in));
                }
                NativeKeyedState nativeState = null;
                if (format >= 3 && in.readBoolean()) {
                    String backend = in.readUTF();
                    int first = in.readInt();
                    int end = in.readInt();
                    byte[] handle = readBytes(in);
                    int files = Serializers.readLength(in, "shared file count");
                    List<String> shared = new ArrayList<>(files);
                    for (int f = 0; f < files; f++) {
                        shared.add(CheckpointStorage.checkSharedReference(in.readUTF()));
                    }
                    if (first < 0 || end < first) {
                        throw new IOException("keyed state of operator " + uid + " has key groups " + first + ".." + end);
                    }
                    nativeState = new NativeKeyedState(backend, first, end, handle, shared);
                }
                operators.put(uid, new OperatorSnapshot(lists, subtaskLists, keyed, unionLists, nativeState));
            }
            return operators;
        });
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

    private static Map<String, List<byte[]>> readLists(DataInputStream in) throws IOException {
        int count = Serializers.readLength(in, "state list count");
        Map<String, List<byte[]>> lists = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String name = in.readUTF();
            int size = Serializers.readLength(in, "state list " + name);
            List<byte[]> values = new ArrayList<>(size);
            for (int v = 0; v < size; v++) {
                values.add(readBytes(in));
            }
            lists.put(name, values);
        }
        return lists;
    }

    private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        byte[] bytes = new byte[Serializers.readLength(in, "state value")];
        in.readFully(bytes);
        return bytes;
    }
}
