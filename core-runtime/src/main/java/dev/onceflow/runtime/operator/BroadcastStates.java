package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.state.BroadcastState;
import dev.onceflow.runtime.state.ReadOnlyBroadcastState;
import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.VersionedValues;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The broadcast states of one operator instance, on the heap. They are the same on every subtask,
 * so only subtask 0 writes them into a snapshot, as union state (one entry per map entry); on
 * restore every subtask reads that one copy, whatever the parallelism was and is.
 */
final class BroadcastStates {

    private final String uid;
    private final Map<String, HeapBroadcastState<?, ?>> states = new LinkedHashMap<>();

    /** Restores the states {@code descriptors} declare from {@code restored}'s union state. */
    BroadcastStates(String uid, List<StateDescriptor.Map<?, ?>> descriptors, RestoredState restored) {
        this.uid = uid;
        for (StateDescriptor.Map<?, ?> descriptor : descriptors) {
            states.put(descriptor.name(), restore(descriptor, restored.unionList(descriptor.name())));
        }
    }

    private <K, V> HeapBroadcastState<K, V> restore(StateDescriptor.Map<K, V> descriptor, List<byte[]> entries) {
        HeapBroadcastState<K, V> state = new HeapBroadcastState<>(descriptor);
        for (int i = 0; i < entries.size(); i++) {
            try {
                state.read(entries.get(i));
            } catch (IOException | RuntimeException e) {
                // State files are input: a malformed entry is named, never half-restored.
                throw new IllegalStateException("cannot restore entry " + i + " of broadcast state '" + descriptor.name()
                        + "' of '" + uid + "': " + e.getMessage(), e);
            }
        }
        return state;
    }

    /** The union state to snapshot: every state's entries on subtask 0, nothing on the others. */
    Map<String, List<byte[]>> snapshot(int subtask) throws IOException {
        Map<String, List<byte[]>> union = new LinkedHashMap<>();
        if (subtask != 0) {
            return union;
        }
        for (HeapBroadcastState<?, ?> state : states.values()) {
            List<byte[]> entries = state.write();
            if (!entries.isEmpty()) {
                union.put(state.descriptor.name(), entries);
            }
        }
        return union;
    }

    /**
     * The state {@code descriptor} names, to read and change.
     *
     * @throws IllegalArgumentException if it was not declared
     */
    @SuppressWarnings("unchecked")
    <K, V> BroadcastState<K, V> writable(StateDescriptor.Map<K, V> descriptor) {
        HeapBroadcastState<?, ?> state = states.get(descriptor.name());
        if (state == null) {
            throw new IllegalArgumentException("broadcast state '" + descriptor.name() + "' of '" + uid
                    + "' was not declared; declared: " + states.keySet() + " (pass every descriptor to broadcast(...))");
        }
        return (HeapBroadcastState<K, V>) state;
    }

    /** The state {@code descriptor} names, read only: an object that no cast makes writable. */
    <K, V> ReadOnlyBroadcastState<K, V> readOnly(StateDescriptor.Map<K, V> descriptor) {
        return ((HeapBroadcastState<K, V>) writable(descriptor)).readOnly;
    }

    /** Reads a broadcast map; on its own, the view a function gets where it may only read. */
    private static class HeapReadOnly<K, V> implements ReadOnlyBroadcastState<K, V> {
        final Map<K, V> map;
        private final Map<K, V> view;

        HeapReadOnly(Map<K, V> map) {
            this.map = map;
            this.view = Collections.unmodifiableMap(map);
        }

        @Override
        public V get(K key) {
            return map.get(key);
        }

        @Override
        public boolean contains(K key) {
            return map.containsKey(key);
        }

        @Override
        public Map<K, V> entries() {
            return view;
        }
    }

    /** One broadcast map on the heap, serialized entry by entry at each snapshot of subtask 0. */
    private static final class HeapBroadcastState<K, V> extends HeapReadOnly<K, V> implements BroadcastState<K, V> {
        private final StateDescriptor.Map<K, V> descriptor;
        /** Not a {@link BroadcastState}: a cast cannot make it writable. */
        private final ReadOnlyBroadcastState<K, V> readOnly = new HeapReadOnly<>(map);

        HeapBroadcastState(StateDescriptor.Map<K, V> descriptor) {
            super(new HashMap<>());
            this.descriptor = descriptor;
        }

        @Override
        public void put(K key, V value) {
            map.put(key, value);
        }

        @Override
        public void remove(K key) {
            map.remove(key);
        }

        @Override
        public void clear() {
            map.clear();
        }

        /** An entry: the key's length, the key and the value, each with its serializer's version. */
        List<byte[]> write() throws IOException {
            List<byte[]> entries = new ArrayList<>(map.size());
            for (Map.Entry<K, V> entry : map.entrySet()) {
                byte[] key = VersionedValues.write(descriptor.keySerializer(), entry.getKey());
                byte[] value = VersionedValues.write(descriptor.valueSerializer(), entry.getValue());
                entries.add(ByteBuffer.allocate(Integer.BYTES + key.length + value.length)
                        .putInt(key.length).put(key).put(value).array());
            }
            return entries;
        }

        void read(byte[] entry) throws IOException {
            ByteBuffer buffer = ByteBuffer.wrap(entry);
            if (buffer.remaining() < Integer.BYTES) {
                throw new IOException("entry of " + entry.length + " bytes is too short");
            }
            int keyLength = buffer.getInt();
            if (keyLength < 0 || keyLength > buffer.remaining()) {
                throw new IOException("key length " + keyLength + " does not fit the entry of " + entry.length + " bytes");
            }
            byte[] key = new byte[keyLength];
            buffer.get(key);
            byte[] value = new byte[buffer.remaining()];
            buffer.get(value);
            map.put(VersionedValues.read(descriptor.keySerializer(), key),
                    VersionedValues.read(descriptor.valueSerializer(), value));
        }
    }
}
