package dev.onceflow.runtime.state;

import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The snapshot format of keyed state, shared by every {@link KeyedStateBackend} so that snapshots
 * move between backends.
 *
 * <p>One blob per key group: {@code int format, int keySerializerVersion, int stateCount}, then
 * per state {@code UTF name, int entryCount} and per entry the key's serialized bytes and the
 * value's encoding, each as {@code int length, bytes}. A value's encoding carries the versions of
 * the serializers that wrote it, so it is read back with those (rule SER-2):
 * <ul>
 *   <li>value, reducing, aggregating: {@code int version, int length, bytes};</li>
 *   <li>list: {@code int elementVersion, int size}, then each element as {@code int length, bytes};</li>
 *   <li>map: {@code int keyVersion, int valueVersion, int size}, then per entry key and value,
 *       each as {@code int length, bytes}.</li>
 * </ul>
 * Snapshots are input: lengths are checked before anything is allocated.
 */
public final class KeyedStateFormat {

    public static final int FORMAT_VERSION = 1;

    private KeyedStateFormat() {
    }

    /** Reads what one key group blob holds, entry by entry. */
    public interface GroupVisitor {
        void entry(String state, int keySerializerVersion, byte[] key, byte[] value) throws IOException;
    }

    /** Calls {@code visitor} with every entry of a key group blob. */
    public static void readGroup(byte[] blob, GroupVisitor visitor) throws IOException {
        Serializers.read(blob, in -> {
            int format = in.readInt();
            Serializers.checkVersion(FORMAT_VERSION, format, "keyed state");
            int keyVersion = in.readInt();
            int count = Serializers.readLength(in, "keyed state count");
            for (int s = 0; s < count; s++) {
                String name = in.readUTF();
                int entries = Serializers.readLength(in, "keyed state " + name);
                for (int e = 0; e < entries; e++) {
                    visitor.entry(name, keyVersion, readBytes(in), readBytes(in));
                }
            }
            return null;
        });
    }

    /** Writes a group blob's header; {@code stateCount} states follow, each from {@link #writeStateHeader}. */
    public static void writeGroupHeader(DataOutputStream out, int keySerializerVersion, int stateCount)
            throws IOException {
        out.writeInt(FORMAT_VERSION);
        out.writeInt(keySerializerVersion);
        out.writeInt(stateCount);
    }

    /** Writes one state's header; {@code entryCount} pairs of {@link #writeBytes} (key, value) follow. */
    public static void writeStateHeader(DataOutputStream out, String name, int entryCount) throws IOException {
        out.writeUTF(name);
        out.writeInt(entryCount);
    }

    public static <T> byte[] encodeValue(SimpleVersionedSerializer<T> serializer, T value) throws IOException {
        return Serializers.write(out -> writeValueBody(out, serializer.version(), serializer.serialize(value)));
    }

    /**
     * Writes {@code writeBytes(out, encodeValue(serializer, value))} without building the encoding
     * as an array of its own: a snapshot writes every value of the state this way.
     */
    public static <T> void writeEncodedValue(DataOutputStream out, SimpleVersionedSerializer<T> serializer, T value)
            throws IOException {
        byte[] payload = serializer.serialize(value);
        out.writeInt(2 * Integer.BYTES + payload.length);
        writeValueBody(out, serializer.version(), payload);
    }

    /** A single value's encoding: {@code int version, int length, bytes}. */
    private static void writeValueBody(DataOutputStream out, int version, byte[] payload) throws IOException {
        out.writeInt(version);
        writeBytes(out, payload);
    }

    public static <T> T decodeValue(SimpleVersionedSerializer<T> serializer, byte[] encoded) throws IOException {
        return Serializers.read(encoded, in -> serializer.deserialize(in.readInt(), readBytes(in)));
    }

    public static <T> byte[] encodeList(SimpleVersionedSerializer<T> element, List<T> list) throws IOException {
        return Serializers.write(out -> {
            out.writeInt(element.version());
            out.writeInt(list.size());
            for (T item : list) {
                writeBytes(out, element.serialize(item));
            }
        });
    }

    public static <T> List<T> decodeList(SimpleVersionedSerializer<T> element, byte[] encoded) throws IOException {
        return Serializers.read(encoded, in -> {
            int version = in.readInt();
            int size = Serializers.readLength(in, "list state");
            List<T> list = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                list.add(element.deserialize(version, readBytes(in)));
            }
            return list;
        });
    }

    public static <K, V> byte[] encodeMap(SimpleVersionedSerializer<K> keys, SimpleVersionedSerializer<V> values,
            Map<K, V> map) throws IOException {
        return Serializers.write(out -> {
            out.writeInt(keys.version());
            out.writeInt(values.version());
            out.writeInt(map.size());
            for (Map.Entry<K, V> entry : map.entrySet()) {
                writeBytes(out, keys.serialize(entry.getKey()));
                writeBytes(out, values.serialize(entry.getValue()));
            }
        });
    }

    public static <K, V> Map<K, V> decodeMap(SimpleVersionedSerializer<K> keys, SimpleVersionedSerializer<V> values,
            byte[] encoded) throws IOException {
        return Serializers.read(encoded, in -> {
            int keyVersion = in.readInt();
            int valueVersion = in.readInt();
            int size = Serializers.readLength(in, "map state");
            Map<K, V> map = new HashMap<>();
            for (int i = 0; i < size; i++) {
                map.put(keys.deserialize(keyVersion, readBytes(in)), values.deserialize(valueVersion, readBytes(in)));
            }
            return map;
        });
    }

    public static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    public static byte[] readBytes(DataInputStream in) throws IOException {
        byte[] bytes = new byte[Serializers.readLength(in, "state entry")];
        in.readFully(bytes);
        return bytes;
    }
}
