package dev.onceflow.runtime.state;

import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Keyed state on the heap of one parallel subtask: one hash map per key group and state.
 *
 * <p>Snapshots serialize every key group the subtask owns into one blob per group, so groups can
 * move between subtasks when a savepoint is restored at another parallelism. The synchronous part
 * of a snapshot is this serialization; writing the blobs happens off the task thread.
 *
 * <p>Restored state stays in its serialized form until the operator registers the state by name
 * (its serializers are known only then); state that is never registered is carried into the next
 * snapshot unchanged instead of being dropped.
 *
 * <p>Not thread-safe: used only on the task thread.
 */
public final class HeapKeyedStateBackend<K> {

    private static final int FORMAT_VERSION = 1;

    private final SimpleVersionedSerializer<K> keySerializer;
    private final int maxParallelism;
    private final int firstGroup;
    private final int endGroup;
    private final Map<String, HeapState> states = new LinkedHashMap<>();
    /** State name -> key group -> key -> serialized value, not yet claimed by a descriptor. */
    private final Map<String, Map<Integer, Map<Object, byte[]>>> unclaimed = new LinkedHashMap<>();

    private K currentKey;
    private int currentGroupIndex = -1;

    public HeapKeyedStateBackend(SimpleVersionedSerializer<K> keySerializer, int maxParallelism, int subtask,
            int parallelism) {
        this.keySerializer = keySerializer;
        this.maxParallelism = maxParallelism;
        this.firstGroup = KeyGroups.firstGroup(subtask, maxParallelism, parallelism);
        this.endGroup = KeyGroups.endGroup(subtask, maxParallelism, parallelism);
    }

    /** Scopes every state to {@code key} until the next call. */
    public void setCurrentKey(K key) {
        int group = KeyGroups.keyGroupOf(key, maxParallelism);
        if (group < firstGroup || group >= endGroup) {
            throw new IllegalStateException("key " + key + " in key group " + group + " reached the subtask owning groups "
                    + firstGroup + ".." + (endGroup - 1));
        }
        currentKey = key;
        currentGroupIndex = group - firstGroup;
    }

    public K currentKey() {
        return currentKey;
    }

    public <T> ValueState<T> state(StateDescriptor.Value<T> descriptor) {
        HeapState state = register(descriptor.name(), new Codec(descriptor.serializer()) {
        });
        return new ValueState<>() {
            @Override
            @SuppressWarnings("unchecked")
            public T value() {
                return (T) state.get();
            }

            @Override
            public void update(T value) {
                state.put(value);
            }

            @Override
            public void clear() {
                state.put(null);
            }
        };
    }

    public <T> ReducingState<T> state(StateDescriptor.Reducing<T> descriptor) {
        HeapState state = register(descriptor.name(), new Codec(descriptor.serializer()) {
        });
        return new ReducingState<>() {
            @Override
            @SuppressWarnings("unchecked")
            public T get() {
                return (T) state.get();
            }

            @Override
            @SuppressWarnings("unchecked")
            public void add(T value) {
                T current = (T) state.get();
                state.put(current == null ? value : descriptor.reduce().apply(current, value));
            }

            @Override
            public void clear() {
                state.put(null);
            }
        };
    }

    public <IN, ACC, OUT> AggregatingState<IN, OUT> state(StateDescriptor.Aggregating<IN, ACC, OUT> descriptor) {
        HeapState state = register(descriptor.name(), new Codec(descriptor.accumulatorSerializer()) {
        });
        AggregateFunction<IN, ACC, OUT> function = descriptor.function();
        return new AggregatingState<>() {
            @Override
            @SuppressWarnings("unchecked")
            public OUT get() {
                ACC acc = (ACC) state.get();
                return acc == null ? null : function.getResult(acc);
            }

            @Override
            @SuppressWarnings("unchecked")
            public void add(IN value) {
                ACC acc = (ACC) state.get();
                state.put(function.add(value, acc == null ? function.createAccumulator() : acc));
            }

            @Override
            public void clear() {
                state.put(null);
            }
        };
    }

    public <T> ListState<T> state(StateDescriptor.List<T> descriptor) {
        SimpleVersionedSerializer<T> element = descriptor.elementSerializer();
        HeapState state = register(descriptor.name(), new Codec(null) {
            @Override
            @SuppressWarnings("unchecked")
            void write(Object value, DataOutputStream out) throws IOException {
                List<T> list = (List<T>) value;
                out.writeInt(element.version());
                out.writeInt(list.size());
                for (T item : list) {
                    writeBytes(out, element.serialize(item));
                }
            }

            @Override
            Object read(DataInputStream in) throws IOException {
                int version = in.readInt();
                int size = Serializers.readLength(in, "list state");
                List<T> list = new ArrayList<>(size);
                for (int i = 0; i < size; i++) {
                    list.add(element.deserialize(version, readBytes(in)));
                }
                return list;
            }
        });
        return new ListState<>() {
            @Override
            @SuppressWarnings("unchecked")
            public List<T> get() {
                List<T> list = (List<T>) state.get();
                return list == null ? List.of() : Collections.unmodifiableList(list);
            }

            @Override
            @SuppressWarnings("unchecked")
            public void add(T value) {
                List<T> list = (List<T>) state.get();
                if (list == null) {
                    list = new ArrayList<>();
                    state.put(list);
                }
                list.add(value);
            }

            @Override
            public void update(List<T> values) {
                state.put(values.isEmpty() ? null : new ArrayList<>(values));
            }

            @Override
            public void clear() {
                state.put(null);
            }
        };
    }

    public <UK, UV> MapState<UK, UV> state(StateDescriptor.Map<UK, UV> descriptor) {
        SimpleVersionedSerializer<UK> keys = descriptor.keySerializer();
        SimpleVersionedSerializer<UV> values = descriptor.valueSerializer();
        HeapState state = register(descriptor.name(), new Codec(null) {
            @Override
            @SuppressWarnings("unchecked")
            void write(Object value, DataOutputStream out) throws IOException {
                Map<UK, UV> map = (Map<UK, UV>) value;
                out.writeInt(keys.version());
                out.writeInt(values.version());
                out.writeInt(map.size());
                for (Map.Entry<UK, UV> entry : map.entrySet()) {
                    writeBytes(out, keys.serialize(entry.getKey()));
                    writeBytes(out, values.serialize(entry.getValue()));
                }
            }

            @Override
            Object read(DataInputStream in) throws IOException {
                int keyVersion = in.readInt();
                int valueVersion = in.readInt();
                int size = Serializers.readLength(in, "map state");
                Map<UK, UV> map = new HashMap<>();
                for (int i = 0; i < size; i++) {
                    map.put(keys.deserialize(keyVersion, readBytes(in)), values.deserialize(valueVersion, readBytes(in)));
                }
                return map;
            }
        });
        return new MapState<>() {
            @SuppressWarnings("unchecked")
            private Map<UK, UV> map(boolean create) {
                Map<UK, UV> map = (Map<UK, UV>) state.get();
                if (map == null && create) {
                    map = new HashMap<>();
                    state.put(map);
                }
                return map;
            }

            @Override
            public UV get(UK key) {
                Map<UK, UV> map = map(false);
                return map == null ? null : map.get(key);
            }

            @Override
            public void put(UK key, UV value) {
                map(true).put(key, value);
            }

            @Override
            public void remove(UK key) {
                Map<UK, UV> map = map(false);
                if (map != null) {
                    map.remove(key);
                    if (map.isEmpty()) {
                        state.put(null);
                    }
                }
            }

            @Override
            public boolean contains(UK key) {
                Map<UK, UV> map = map(false);
                return map != null && map.containsKey(key);
            }

            @Override
            public Map<UK, UV> entries() {
                Map<UK, UV> map = map(false);
                return map == null ? Map.of() : Collections.unmodifiableMap(map);
            }

            @Override
            public void clear() {
                state.put(null);
            }
        };
    }

    /**
     * Calls {@code action} with every key that has a value in the registered state {@code name},
     * in no particular order, over a copy of the keys: {@code action} may set the current key and
     * change state.
     */
    @SuppressWarnings("unchecked")
    public void forEachKey(String name, java.util.function.Consumer<K> action) {
        HeapState state = states.get(name);
        if (state == null) {
            throw new IllegalStateException("keyed state '" + name + "' is not registered");
        }
        for (Map<Object, Object> group : state.groups) {
            if (group != null) {
                for (Object key : group.keySet().toArray()) {
                    action.accept((K) key);
                }
            }
        }
    }

    /**
     * Serializes every owned key group that holds state. Runs on the task thread, so the result is
     * a consistent cut at the barrier.
     */
    public SortedMap<Integer, byte[]> snapshot() throws IOException {
        SortedMap<Integer, byte[]> result = new TreeMap<>();
        for (int group = firstGroup; group < endGroup; group++) {
            int index = group - firstGroup;
            int groupId = group;
            List<HeapState> withData = new ArrayList<>();
            for (HeapState state : states.values()) {
                if (state.groups[index] != null && !state.groups[index].isEmpty()) {
                    withData.add(state);
                }
            }
            List<Map.Entry<String, Map<Object, byte[]>>> raw = new ArrayList<>();
            for (Map.Entry<String, Map<Integer, Map<Object, byte[]>>> entry : unclaimed.entrySet()) {
                Map<Object, byte[]> values = entry.getValue().get(group);
                if (values != null) {
                    raw.add(Map.entry(entry.getKey(), values));
                }
            }
            if (withData.isEmpty() && raw.isEmpty()) {
                continue;
            }
            result.put(groupId, Serializers.write(out -> {
                out.writeInt(FORMAT_VERSION);
                out.writeInt(keySerializer.version());
                out.writeInt(withData.size() + raw.size());
                for (HeapState state : withData) {
                    out.writeUTF(state.name);
                    Map<Object, Object> map = state.groups[index];
                    out.writeInt(map.size());
                    for (Map.Entry<Object, Object> entry : map.entrySet()) {
                        @SuppressWarnings("unchecked")
                        K key = (K) entry.getKey();
                        writeBytes(out, keySerializer.serialize(key));
                        writeBytes(out, state.codec.encode(entry.getValue()));
                    }
                }
                for (Map.Entry<String, Map<Object, byte[]>> entry : raw) {
                    out.writeUTF(entry.getKey());
                    out.writeInt(entry.getValue().size());
                    for (Map.Entry<Object, byte[]> value : entry.getValue().entrySet()) {
                        @SuppressWarnings("unchecked")
                        K key = (K) value.getKey();
                        writeBytes(out, keySerializer.serialize(key));
                        writeBytes(out, value.getValue());
                    }
                }
            }));
        }
        return result;
    }

    /**
     * Loads key groups from a snapshot. Groups outside this subtask's range are ignored (they
     * belong to another subtask after rescaling). Must be called before any state is registered.
     */
    public void restore(Map<Integer, byte[]> keyGroups) throws IOException {
        for (Map.Entry<Integer, byte[]> entry : keyGroups.entrySet()) {
            int group = entry.getKey();
            if (group < firstGroup || group >= endGroup) {
                continue;
            }
            Serializers.read(entry.getValue(), in -> {
                int format = in.readInt();
                Serializers.checkVersion(FORMAT_VERSION, format, "keyed state");
                // Keys are read with the version they were written in (rule SER-2) and written back
                // with the current one.
                int keyVersion = in.readInt();
                int count = in.readInt();
                for (int s = 0; s < count; s++) {
                    String name = in.readUTF();
                    int entries = Serializers.readLength(in, "keyed state " + name);
                    Map<Object, byte[]> values = unclaimed.computeIfAbsent(name, n -> new HashMap<>())
                            .computeIfAbsent(group, g -> new HashMap<>());
                    for (int e = 0; e < entries; e++) {
                        values.put(keySerializer.deserialize(keyVersion, readBytes(in)), readBytes(in));
                    }
                }
                return null;
            });
        }
    }

    private HeapState register(String name, Codec codec) {
        HeapState existing = states.get(name);
        if (existing != null) {
            return existing;
        }
        HeapState state = new HeapState(name, codec, endGroup - firstGroup);
        Map<Integer, Map<Object, byte[]>> raw = unclaimed.remove(name);
        if (raw != null) {
            try {
                for (Map.Entry<Integer, Map<Object, byte[]>> entry : raw.entrySet()) {
                    Map<Object, Object> map = state.group(entry.getKey() - firstGroup);
                    for (Map.Entry<Object, byte[]> value : entry.getValue().entrySet()) {
                        map.put(value.getKey(), codec.decode(value.getValue()));
                    }
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot restore keyed state '" + name + "': " + e.getMessage(), e);
            }
        }
        states.put(name, state);
        return state;
    }

    static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    static byte[] readBytes(DataInputStream in) throws IOException {
        byte[] bytes = new byte[Serializers.readLength(in, "state entry")];
        in.readFully(bytes);
        return bytes;
    }

    /** Writes one state value; the default writes a single value with the descriptor's serializer. */
    private abstract static class Codec {
        private final SimpleVersionedSerializer<Object> serializer;

        @SuppressWarnings("unchecked")
        Codec(SimpleVersionedSerializer<?> serializer) {
            this.serializer = (SimpleVersionedSerializer<Object>) serializer;
        }

        void write(Object value, DataOutputStream out) throws IOException {
            out.writeInt(serializer.version());
            writeBytes(out, serializer.serialize(value));
        }

        Object read(DataInputStream in) throws IOException {
            int version = in.readInt();
            return serializer.deserialize(version, readBytes(in));
        }

        final byte[] encode(Object value) throws IOException {
            return Serializers.write(out -> write(value, out));
        }

        final Object decode(byte[] bytes) throws IOException {
            return Serializers.read(bytes, this::read);
        }
    }

    /** One registered state: a map from key to value per owned key group. */
    private final class HeapState {
        final String name;
        final Codec codec;
        final Map<Object, Object>[] groups;

        @SuppressWarnings({"unchecked", "rawtypes"})
        HeapState(String name, Codec codec, int groupCount) {
            this.name = name;
            this.codec = codec;
            this.groups = new Map[groupCount];
        }

        Map<Object, Object> group(int index) {
            Map<Object, Object> map = groups[index];
            if (map == null) {
                map = new HashMap<>();
                groups[index] = map;
            }
            return map;
        }

        Object get() {
            checkKey();
            Map<Object, Object> map = groups[currentGroupIndex];
            return map == null ? null : map.get(currentKey);
        }

        void put(Object value) {
            checkKey();
            if (value == null) {
                Map<Object, Object> map = groups[currentGroupIndex];
                if (map != null) {
                    map.remove(currentKey);
                }
            } else {
                group(currentGroupIndex).put(currentKey, value);
            }
        }

        private void checkKey() {
            if (currentGroupIndex < 0) {
                throw new IllegalStateException("keyed state '" + name + "' used outside of a keyed context");
            }
        }
    }
}
