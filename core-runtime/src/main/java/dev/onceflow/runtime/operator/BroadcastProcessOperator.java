package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.api.BroadcastProcessFunction;
import dev.onceflow.runtime.state.BroadcastState;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.ReadOnlyBroadcastState;
import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.VersionedValues;
import dev.onceflow.runtime.task.StreamElement;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs a {@link BroadcastProcessFunction}: the first input is the processed stream, the second the
 * broadcast one. Its broadcast states are the same on every subtask, so only subtask 0 writes them
 * into a snapshot, as union state (one entry per map entry); on restore every subtask reads that
 * one copy, whatever the parallelism was and is.
 */
public final class BroadcastProcessOperator<IN, B, OUT> extends TwoInputStreamOperator<IN, B> {

    private final BroadcastProcessFunction<IN, B, OUT> function;
    private final List<StateDescriptor.Map<?, ?>> descriptors;
    private final Map<String, HeapBroadcastState<?, ?>> states = new LinkedHashMap<>();
    private RestoredState restored;
    private long watermark = StreamElement.NO_TIMESTAMP;
    private final OpenView openContext = new OpenView();
    private final ReadOnlyView readOnlyContext = new ReadOnlyView();
    private final WritableView broadcastContext = new WritableView();

    public BroadcastProcessOperator(BroadcastProcessFunction<IN, B, OUT> function,
            List<StateDescriptor.Map<?, ?>> descriptors) {
        this.function = function;
        this.descriptors = List.copyOf(descriptors);
    }

    @Override
    public void initializeState(RestoredState state) throws Exception {
        restored = state;
        for (StateDescriptor.Map<?, ?> descriptor : descriptors) {
            states.put(descriptor.name(), restore(descriptor, state.unionList(descriptor.name())));
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
                        + "' of '" + context.uid() + "': " + e.getMessage(), e);
            }
        }
        return state;
    }

    @Override
    public void open() throws Exception {
        function.open(openContext);
    }

    @Override
    public void processElement(IN record) throws Exception {
        function.processElement(record, readOnlyContext, output::collect);
    }

    @Override
    public void processElement2(B record) throws Exception {
        function.processBroadcastElement(record, broadcastContext, output::collect);
    }

    @Override
    public void processWatermark(long value) throws Exception {
        watermark = value;
        output.emitWatermark(value);
    }

    @Override
    public OperatorSnapshot snapshotState(long checkpointId) throws Exception {
        if (context.subtaskIndex() != 0) {
            return OperatorSnapshot.EMPTY;
        }
        Map<String, List<byte[]>> union = new LinkedHashMap<>();
        for (HeapBroadcastState<?, ?> state : states.values()) {
            List<byte[]> entries = state.write();
            if (!entries.isEmpty()) {
                union.put(state.descriptor.name(), entries);
            }
        }
        return new OperatorSnapshot(Map.of(), Map.of(), new TreeMap<>(), union);
    }

    @Override
    public void close() throws Exception {
        function.close();
    }

    @Override
    public void cancel() {
        try {
            function.close();
        } catch (Exception ignored) {
            // the job is failing already; the original failure is what matters
        }
    }

    // Contexts: three views, so a function cannot change the broadcast state where it may only read it.

    @SuppressWarnings("unchecked")
    private <K, V> HeapBroadcastState<K, V> state(StateDescriptor.Map<K, V> descriptor) {
        HeapBroadcastState<?, ?> state = states.get(descriptor.name());
        if (state == null) {
            throw new IllegalArgumentException("broadcast state '" + descriptor.name() + "' of '" + context.uid()
                    + "' was not declared; declared: " + states.keySet() + " (pass every descriptor to broadcast(...))");
        }
        return (HeapBroadcastState<K, V>) state;
    }

    private final class OpenView implements BroadcastProcessFunction.OpenContext {
        @Override
        public int subtaskIndex() {
            return context.subtaskIndex();
        }

        @Override
        public int parallelism() {
            return context.parallelism();
        }

        @Override
        public boolean isRestored() {
            return restored.isRestored();
        }

        @Override
        public <K, V> ReadOnlyBroadcastState<K, V> getBroadcastState(StateDescriptor.Map<K, V> descriptor) {
            return state(descriptor).readOnly;
        }
    }

    /** What both record contexts tell of the current record. */
    private abstract class RecordView {
        public long timestamp() {
            return context.time().timestamp();
        }

        public long currentWatermark() {
            return watermark;
        }
    }

    private final class ReadOnlyView extends RecordView implements BroadcastProcessFunction.ReadOnlyContext {
        @Override
        public <K, V> ReadOnlyBroadcastState<K, V> getBroadcastState(StateDescriptor.Map<K, V> descriptor) {
            return state(descriptor).readOnly;
        }
    }

    private final class WritableView extends RecordView implements BroadcastProcessFunction.Context {
        @Override
        public <K, V> BroadcastState<K, V> getBroadcastState(StateDescriptor.Map<K, V> descriptor) {
            return state(descriptor);
        }
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
