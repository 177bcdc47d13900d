package dev.onceflow.runtime.checkpoint;

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

    private static final int FORMAT_VERSION = 1;

    private TaskStateCodec() {
    }

    static byte[] encode(Map<String, OperatorSnapshot> operators) throws IOException {
        return Serializers.write(out -> {
            out.writeInt(FORMAT_VERSION);
            out.writeInt(operators.size());
            for (Map.Entry<String, OperatorSnapshot> entry : operators.entrySet()) {
                out.writeUTF(entry.getKey());
                writeLists(out, entry.getValue().listState());
                writeLists(out, entry.getValue().subtaskState());
                out.writeInt(entry.getValue().keyedState().size());
                for (Map.Entry<Integer, byte[]> group : entry.getValue().keyedState().entrySet()) {
                    out.writeInt(group.getKey());
                    writeBytes(out, group.getValue());
                }
            }
        });
    }

    static Map<String, OperatorSnapshot> decode(byte[] bytes) throws IOException {
        return Serializers.read(bytes, in -> {
            Serializers.checkVersion(FORMAT_VERSION, in.readInt(), "task state file");
            int count = Serializers.readLength(in, "operator count");
            Map<String, OperatorSnapshot> operators = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                String uid = in.readUTF();
                Map<String, List<byte[]>> lists = readLists(in);
                Map<String, List<byte[]>> subtaskLists = readLists(in);
                int groups = Serializers.readLength(in, "key group count");
                SortedMap<Integer, byte[]> keyed = new TreeMap<>();
                for (int g = 0; g < groups; g++) {
                    keyed.put(in.readInt(), readBytes(in));
                }
                operators.put(uid, new OperatorSnapshot(lists, subtaskLists, keyed));
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
