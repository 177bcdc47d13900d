package dev.onceflow.runtime.state;

import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
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
 * Keyed state on the heap of one parallel subtask: per state, the entries of each key group are
 * spread over hash maps (segments) by a hash of the key: a power of two per group, at most
 * {@link #SEGMENTS_PER_SUBTASK} maps for all the subtask's groups, and at least one per group.
 *
 * <p>Snapshots serialize every key group the subtask owns into one blob per group, so groups can
 * move between subtasks when a savepoint is restored at another parallelism.
 *
 * <p><b>Copy-on-write snapshots.</b> {@link #freeze()} (the synchronous part, on the task thread at
 * the barrier) only marks every segment map as shared with the snapshot and keeps references to
 * them: microseconds, whatever the size of the state. The snapshot thread then serializes those
 * maps ({@link Frozen#serialize()}) while the task goes on. The first write to a shared segment
 * copies that segment's map (1/4096 to 1/2048 of the state for up to 4,096 key groups), and the first in-place
 * change of a mutable value (a list, a map, an accumulator) copies that value, so nothing the
 * snapshot reads ever changes. Objects handed to {@code update} or returned by {@code value()}
 * must not be changed in place by the function afterwards; serializers must be thread-safe, since
 * the snapshot thread uses them concurrently with the task thread.
 *
 * <p>Restored state stays in its serialized form until the operator registers the state by name
 * (its serializers are known only then); state that is never registered is carried into the next
 * snapshot unchanged instead of being dropped.
 *
 * <p>Not thread-safe: used only on the task thread.
 */
public final class HeapKeyedStateBackend<K> implements KeyedStateBackend<K> {

    /**
     * Maps per state that a subtask's key groups are divided into at most, unless it owns more
     * groups: at least one per group. What a write copies after a freeze is one map, so the task's
     * pause for it shrinks with the map: with one map per key group, 2.2 M keys in 128 groups, a
     * copy of 17,000 entries paused the task for 10-33 ms (SnapshotStallBenchmark). Segments only
     * divide the heap's maps; snapshots hold one blob per key group, as before.
     */
    static final int SEGMENTS_PER_SUBTASK = 4096;

    private final SimpleVersionedSerializer<K> keySerializer;
    private final int maxParallelism;
    private final int firstGroup;
    private final int endGroup;
    /** A power of two: {@link #SEGMENTS_PER_SUBTASK} divided by the owned key groups, at least one. */
    private final int segmentsPerGroup;
    private final int segmentBits;
    private final Map<String, HeapState> states = new LinkedHashMap<>();
    /** State name -> key group -> key -> serialized value, not yet claimed by a descriptor. */
    private final Map<String, Map<Integer, Map<Object, byte[]>>> unclaimed = new LinkedHashMap<>();

    private K currentKey;
    /** The current key's segment: its key group's index among the owned ones times the segments, plus its segment. */
    private int currentSegment = -1;
    /** Counts {@link #setCurrentKey} calls: a state's cached {@link Cell} is the current key's while its stamp equals this. */
    private long keyStamp;
    /**
     * Counts {@link #freeze()} calls. A {@link Cell} created in the current epoch lies only in maps
     * written since the last freeze, which no snapshot holds, so it may be written in place.
     */
    private long epoch;

    public HeapKeyedStateBackend(SimpleVersionedSerializer<K> keySerializer, int maxParallelism, int subtask,
            int parallelism) {
        this.keySerializer = keySerializer;
        this.maxParallelism = maxParallelism;
        this.firstGroup = KeyGroups.firstGroup(subtask, maxParallelism, parallelism);
        this.endGroup = KeyGroups.endGroup(subtask, maxParallelism, parallelism);
        int groups = Math.max(1, endGroup - firstGroup);
        this.segmentsPerGroup = Integer.highestOneBit(Math.max(1, SEGMENTS_PER_SUBTASK / groups));
        this.segmentBits = Integer.numberOfTrailingZeros(segmentsPerGroup);
    }

    @Override
    public void setCurrentKey(K key) {
        setOwnedKey(key, KeyGroups.ownedGroupOf(key, maxParallelism, firstGroup, endGroup));
    }

    @Override
    public void setCurrentKey(K key, int keyGroup) {
        setOwnedKey(key, KeyGroups.owned(key, keyGroup, firstGroup, endGroup));
    }

    private void setOwnedKey(K key, int group) {
        currentKey = key;
        currentSegment = segmentOf(group - firstGroup, key);
        keyStamp++;
    }

    /**
     * The segment of a key in the key group at {@code groupIndex}: the top bits of a multiplicative
     * hash, where the key group took the low bits of another mix of the same hash code.
     */
    private int segmentOf(int groupIndex, Object key) {
        if (segmentBits == 0) {
            return groupIndex; // a shift by 32 bits would shift by none
        }
        return groupIndex * segmentsPerGroup + ((key.hashCode() * 0x9E3779B9) >>> (Integer.SIZE - segmentBits));
    }

    @Override
    public K currentKey() {
        return currentKey;
    }

    @Override
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

    @Override
    public <T> ReducingState<T> state(StateDescriptor.Reducing<T> descriptor) {
        HeapState state = register(descriptor.name(), new Codec(descriptor.serializer(), true) {
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
                // The reduce function may change {@code current} in place: it must be this epoch's copy.
                T current = (T) state.getForUpdate();
                state.put(current == null ? value : descriptor.reduce().apply(current, value));
            }

            @Override
            public void clear() {
                state.put(null);
            }
        };
    }

    @Override
    public <IN, ACC, OUT> AggregatingState<IN, OUT> state(StateDescriptor.Aggregating<IN, ACC, OUT> descriptor) {
        HeapState state = register(descriptor.name(), new Codec(descriptor.accumulatorSerializer(), true) {
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
                ACC acc = (ACC) state.getForUpdate();
                state.put(function.add(value, acc == null ? function.createAccumulator() : acc));
            }

            @Override
            public void clear() {
                state.put(null);
            }
        };
    }

    @Override
    public <T> ListState<T> state(StateDescriptor.List<T> descriptor) {
        SimpleVersionedSerializer<T> element = descriptor.elementSerializer();
        HeapState state = register(descriptor.name(), new Codec(null, true) {
            @Override
            @SuppressWarnings("unchecked")
            Object copy(Object value) {
                return new ArrayList<>((List<T>) value);
            }

            @Override
            @SuppressWarnings("unchecked")
            byte[] encode(Object value) throws IOException {
                return KeyedStateFormat.encodeList(element, (List<T>) value);
            }

            @Override
            Object decode(byte[] encoded) throws IOException {
                return KeyedStateFormat.decodeList(element, encoded);
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
                List<T> list = (List<T>) state.getForUpdate();
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

    @Override
    public <UK, UV> MapState<UK, UV> state(StateDescriptor.Map<UK, UV> descriptor) {
        SimpleVersionedSerializer<UK> keys = descriptor.keySerializer();
        SimpleVersionedSerializer<UV> values = descriptor.valueSerializer();
        HeapState state = register(descriptor.name(), new Codec(null, true) {
            @Override
            @SuppressWarnings("unchecked")
            Object copy(Object value) {
                return new HashMap<>((Map<UK, UV>) value);
            }

            @Override
            @SuppressWarnings("unchecked")
            byte[] encode(Object value) throws IOException {
                return KeyedStateFormat.encodeMap(keys, values, (Map<UK, UV>) value);
            }

            @Override
            Object decode(byte[] encoded) throws IOException {
                return KeyedStateFormat.decodeMap(keys, values, encoded);
            }
        });
        return new MapState<>() {
            @SuppressWarnings("unchecked")
            private Map<UK, UV> map(boolean forUpdate) {
                Map<UK, UV> map = (Map<UK, UV>) (forUpdate ? state.getForUpdate() : state.get());
                if (map == null && forUpdate) {
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
                if (map != null && map.containsKey(key)) {
                    map = map(true);
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

    @Override
    @SuppressWarnings("unchecked")
    public void forEachKey(String name, java.util.function.Consumer<K> action) {
        HeapState state = states.get(name);
        if (state == null) {
            throw new IllegalStateException("keyed state '" + name + "' is not registered");
        }
        for (Map<Object, Object> segment : state.segments) {
            if (segment != null) {
                for (Object key : segment.keySet().toArray()) {
                    action.accept((K) key);
                }
            }
        }
    }

    /** Costs one pass over the registered states' segment arrays, not over the entries. */
    @Override
    public Frozen freeze() {
        List<String> names = new ArrayList<>();
        List<Codec> codecs = new ArrayList<>();
        List<Map<Object, Object>[]> segments = new ArrayList<>();
        for (HeapState state : states.values()) {
            names.add(state.name);
            codecs.add(state.codec);
            segments.add(state.segments.clone());
            java.util.Arrays.fill(state.shared, true);
        }
        // Every cell from now on older than the epoch may be in this snapshot: written by copy only.
        epoch++;
        // Unclaimed state is never written, only claimed (removed) as a whole: copying the outer
        // maps is enough.
        Map<String, Map<Integer, Map<Object, byte[]>>> raw = new LinkedHashMap<>();
        unclaimed.forEach((name, byGroup) -> raw.put(name, new HashMap<>(byGroup)));
        return new Frozen(names, codecs, segments, raw);
    }

    /** A consistent view of the state at one barrier; {@link #serialize()} may run on any one thread. */
    public final class Frozen implements Snapshot {
        private final List<String> names;
        private final List<Codec> codecs;
        private final List<Map<Object, Object>[]> segments;
        private final Map<String, Map<Integer, Map<Object, byte[]>>> raw;

        private Frozen(List<String> names, List<Codec> codecs, List<Map<Object, Object>[]> segments,
                Map<String, Map<Integer, Map<Object, byte[]>>> raw) {
            this.names = names;
            this.codecs = codecs;
            this.segments = segments;
            this.raw = raw;
        }

        @Override
        public SortedMap<Integer, byte[]> serialize() throws IOException {
            SortedMap<Integer, byte[]> result = new TreeMap<>();
            // One buffer for all groups: each group's blob is copied out at its exact size, so a large
            // state costs its size in allocations, not the doubling growth of a buffer per group.
            java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream(1 << 16);
            DataOutputStream out = new DataOutputStream(buffer);
            for (int group = firstGroup; group < endGroup; group++) {
                Snapshot.stopIfInterrupted();
                int first = (group - firstGroup) * segmentsPerGroup;
                List<Integer> withData = new ArrayList<>();
                int[] entries = new int[names.size()];
                for (int s = 0; s < names.size(); s++) {
                    for (int segment = first; segment < first + segmentsPerGroup; segment++) {
                        Map<Object, Object> map = segments.get(s)[segment];
                        entries[s] += map == null ? 0 : map.size();
                    }
                    if (entries[s] > 0) {
                        withData.add(s);
                    }
                }
                List<Map.Entry<String, Map<Object, byte[]>>> rawInGroup = new ArrayList<>();
                for (Map.Entry<String, Map<Integer, Map<Object, byte[]>>> entry : raw.entrySet()) {
                    Map<Object, byte[]> values = entry.getValue().get(group);
                    if (values != null) {
                        rawInGroup.add(Map.entry(entry.getKey(), values));
                    }
                }
                if (withData.isEmpty() && rawInGroup.isEmpty()) {
                    continue;
                }
                buffer.reset();
                {
                    KeyedStateFormat.writeGroupHeader(out, keySerializer.version(), withData.size() + rawInGroup.size());
                    for (int s : withData) {
                        KeyedStateFormat.writeStateHeader(out, names.get(s), entries[s]);
                        for (int segment = first; segment < first + segmentsPerGroup; segment++) {
                            Map<Object, Object> map = segments.get(s)[segment];
                            if (map == null) {
                                continue;
                            }
                            for (Map.Entry<Object, Object> entry : map.entrySet()) {
                                @SuppressWarnings("unchecked")
                                K key = (K) entry.getKey();
                                KeyedStateFormat.writeBytes(out, keySerializer.serialize(key));
                                codecs.get(s).writeEncoded(out, ((Cell) entry.getValue()).value);
                            }
                        }
                    }
                    for (Map.Entry<String, Map<Object, byte[]>> entry : rawInGroup) {
                        KeyedStateFormat.writeStateHeader(out, entry.getKey(), entry.getValue().size());
                        for (Map.Entry<Object, byte[]> value : entry.getValue().entrySet()) {
                            @SuppressWarnings("unchecked")
                            K key = (K) value.getKey();
                            KeyedStateFormat.writeBytes(out, keySerializer.serialize(key));
                            KeyedStateFormat.writeBytes(out, value.getValue());
                        }
                    }
                }
                out.flush();
                result.put(group, buffer.toByteArray());
            }
            return result;
        }
    }

    @Override
    public void restore(Map<Integer, byte[]> keyGroups) throws IOException {
        for (int group : keyGroups.keySet()) {
            if (group < firstGroup || group >= endGroup) {
                continue; // not read at all: a restored checkpoint reads a group's blob when asked
            }
            // Keys are read with the version they were written in (rule SER-2) and written back
            // with the current one.
            KeyedStateFormat.readGroup(keyGroups.get(group), (name, keyVersion, key, value) ->
                    unclaimed.computeIfAbsent(name, n -> new HashMap<>()).computeIfAbsent(group, g -> new HashMap<>())
                            .put(keySerializer.deserialize(keyVersion, key), value));
        }
    }

    /** Nothing to release: the state is garbage once the operator is. */
    @Override
    public void close() {
    }

    private HeapState register(String name, Codec codec) {
        HeapState existing = states.get(name);
        if (existing != null) {
            return existing;
        }
        HeapState state = new HeapState(name, codec, (endGroup - firstGroup) * segmentsPerGroup);
        Map<Integer, Map<Object, byte[]>> raw = unclaimed.remove(name);
        if (raw != null) {
            try {
                for (Map.Entry<Integer, Map<Object, byte[]>> entry : raw.entrySet()) {
                    int groupIndex = entry.getKey() - firstGroup;
                    for (Map.Entry<Object, byte[]> value : entry.getValue().entrySet()) {
                        state.writableSegment(segmentOf(groupIndex, value.getKey()))
                                .put(value.getKey(), new Cell(epoch, codec.decode(value.getValue())));
                    }
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot restore keyed state '" + name + "': " + e.getMessage(), e);
            }
        }
        states.put(name, state);
        return state;
    }

    /** Encodes one state value; the default a single value with the descriptor's serializer. */
    private abstract static class Codec {
        private final SimpleVersionedSerializer<Object> serializer;
        /** Whether values are changed in place (lists, maps, accumulators), so a snapshot needs them copied first. */
        final boolean mutableValues;
        /**
         * Values are single objects encoded with the descriptor's serializer; lists and maps pass
         * no serializer and override {@link #encode}.
         */
        private final boolean encodesSingleValues;

        Codec(SimpleVersionedSerializer<?> serializer) {
            this(serializer, false);
        }

        @SuppressWarnings("unchecked")
        Codec(SimpleVersionedSerializer<?> serializer, boolean mutableValues) {
            this.serializer = (SimpleVersionedSerializer<Object>) serializer;
            this.mutableValues = mutableValues;
            this.encodesSingleValues = serializer != null;
        }

        /** A copy of {@code value} that can be changed without changing it; by default through the serializer. */
        Object copy(Object value) {
            try {
                return decode(encode(value));
            } catch (IOException e) {
                throw new IllegalStateException("cannot copy a state value with its serializer: " + e.getMessage(), e);
            }
        }

        /**
         * Overridden by the codecs constructed without a serializer (lists, maps), and only by
         * them: {@link #writeEncoded} writes the values of the others directly, not through this.
         */
        byte[] encode(Object value) throws IOException {
            return KeyedStateFormat.encodeValue(serializer, value);
        }

        /** Writes {@link #encode} length-prefixed, as a snapshot stores it; directly for single values. */
        void writeEncoded(DataOutputStream out, Object value) throws IOException {
            if (encodesSingleValues) {
                KeyedStateFormat.writeEncodedValue(out, serializer, value);
            } else {
                KeyedStateFormat.writeBytes(out, encode(value));
            }
        }

        Object decode(byte[] encoded) throws IOException {
            return KeyedStateFormat.decodeValue(serializer, encoded);
        }
    }

    /**
     * A key's value in a segment map. A read-modify-write of the current key then costs one map
     * lookup: the state caches the current key's cell, and {@code update} writes into it when it
     * belongs to the current {@link #epoch}. A cell of an earlier epoch may be in a snapshot and is
     * replaced, never written.
     */
    private static final class Cell {
        final long epoch;
        /** Never {@code null}: a key without a value has no cell. */
        Object value;

        Cell(long epoch, Object value) {
            this.epoch = epoch;
            this.value = value;
        }
    }

    /**
     * One registered state: a map from key to {@link Cell} per segment of the owned key groups,
     * copied on write while a snapshot may be reading it.
     */
    private final class HeapState {
        final String name;
        final Codec codec;
        final Map<Object, Object>[] segments;
        /** The segment's map is referenced by a snapshot: copy it before writing. */
        final boolean[] shared;
        /** The current key's cell ({@code null}: no value) while {@link #cachedStamp} equals {@link #keyStamp}. */
        private Cell cached;
        private long cachedStamp = -1;

        @SuppressWarnings({"unchecked", "rawtypes"})
        HeapState(String name, Codec codec, int segmentCount) {
            this.name = name;
            this.codec = codec;
            this.segments = new Map[segmentCount];
            this.shared = new boolean[segmentCount];
        }

        /** The segment's map, safe to add to and remove from: copied first if a snapshot holds it. */
        Map<Object, Object> writableSegment(int index) {
            Map<Object, Object> map = segments[index];
            if (map == null) {
                map = new HashMap<>();
                segments[index] = map;
                shared[index] = false;
            } else if (shared[index]) {
                // The copy shares the cells, which are of an earlier epoch and so are replaced, not written.
                map = new HashMap<>(map);
                segments[index] = map;
                shared[index] = false;
            }
            return map;
        }

        /** The current key's cell, looked up once per key set. */
        private Cell cell() {
            if (cachedStamp != keyStamp) {
                if (currentSegment < 0) {
                    throw new IllegalStateException("keyed state '" + name + "' used outside of a keyed context");
                }
                Map<Object, Object> map = segments[currentSegment];
                cached = map == null ? null : (Cell) map.get(currentKey);
                cachedStamp = keyStamp;
            }
            return cached;
        }

        /** A new cell of this epoch for the current key, in place of any earlier one. */
        private Cell replace(Object value) {
            Cell fresh = new Cell(epoch, value);
            writableSegment(currentSegment).put(currentKey, fresh);
            cached = fresh;
            return fresh;
        }

        Object get() {
            Cell cell = cell();
            return cell == null ? null : cell.value;
        }

        /** The current key's value, safe to change in place: copied first if a snapshot may read it. */
        Object getForUpdate() {
            Cell cell = cell();
            if (cell == null) {
                return null;
            }
            if (cell.epoch != epoch) {
                cell = replace(codec.mutableValues ? codec.copy(cell.value) : cell.value);
            }
            return cell.value;
        }

        void put(Object value) {
            Cell cell = cell();
            if (value == null) {
                if (cell != null) {
                    writableSegment(currentSegment).remove(currentKey);
                    cached = null;
                }
            } else if (cell != null && cell.epoch == epoch) {
                cell.value = value;
            } else {
                replace(value);
            }
        }
    }
}
