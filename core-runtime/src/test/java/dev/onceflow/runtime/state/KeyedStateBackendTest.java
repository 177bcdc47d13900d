package dev.onceflow.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.serialization.Serializers;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Keyed state survives a snapshot and restore unchanged, and after a restore at another
 * parallelism each key's state lives in exactly the subtask that owns the key's group.
 *
 * <p>Runs against the backend named by the system property {@value StateBackend#BACKEND_PROPERTY}
 * (the heap backend here; the {@code onceflow-state-rocksdb} module runs it against RocksDB).
 */
class KeyedStateBackendTest {

    /** Every backend made by a test, closed after it (the RocksDB backend holds native memory and files). */
    private final List<KeyedStateBackend<String>> created = new java.util.ArrayList<>();

    @org.junit.jupiter.api.AfterEach
    void closeBackends() throws Exception {
        for (KeyedStateBackend<String> backend : created) {
            backend.close();
        }
    }

    private static final int MAX_PARALLELISM = 128;

    private static final StateDescriptor.Value<Long> COUNT = StateDescriptor.value("count", Serializers.LONG);
    private static final StateDescriptor.List<String> SEEN = StateDescriptor.list("seen", Serializers.STRING);
    private static final StateDescriptor.Map<String, Long> BY_TAG =
            StateDescriptor.map("by-tag", Serializers.STRING, Serializers.LONG);
    private static final StateDescriptor.Reducing<Long> MAX =
            StateDescriptor.reducing("max", Math::max, Serializers.LONG);
    private static final StateDescriptor.Aggregating<Long, Long, String> SUM = StateDescriptor.aggregating("sum",
            new AggregateFunction<Long, Long, String>() {
                @Override
                public Long createAccumulator() {
                    return 0L;
                }

                @Override
                public Long add(Long value, Long accumulator) {
                    return accumulator + value;
                }

                @Override
                public String getResult(Long accumulator) {
                    return "sum=" + accumulator;
                }
            }, Serializers.LONG);

    private KeyedStateBackend<String> backend(int subtask, int parallelism) {
        try {
            KeyedStateBackend<String> backend = StateBackend.fromSystemProperties().createKeyedStateBackend(
                    new StateBackend.Scope("test", "count", subtask, parallelism, MAX_PARALLELISM, "a" + created.size()),
                    Serializers.STRING);
            created.add(backend);
            return backend;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static int owner(String key, int parallelism) {
        return KeyGroups.subtaskOf(KeyGroups.keyGroupOf(key, MAX_PARALLELISM), MAX_PARALLELISM, parallelism);
    }

    private static List<String> keys(int n) {
        return IntStream.range(0, n).mapToObj(i -> "key-" + i).toList();
    }

    @Test
    void everyStateKindRoundTripsThroughSnapshotAndRestore() throws Exception {
        KeyedStateBackend<String> before = backend(0, 1);
        ValueState<Long> count = before.state(COUNT);
        ListState<String> seen = before.state(SEEN);
        MapState<String, Long> byTag = before.state(BY_TAG);
        ReducingState<Long> max = before.state(MAX);
        AggregatingState<Long, String> sum = before.state(SUM);
        before.setCurrentKey("a");
        count.update(3L);
        seen.add("x");
        seen.add("y");
        byTag.put("red", 1L);
        byTag.put("blue", 2L);
        max.add(4L);
        max.add(9L);
        max.add(2L);
        sum.add(5L);
        sum.add(6L);
        before.setCurrentKey("b");
        count.update(7L);
        seen.update(List.of("z"));
        before.setCurrentKey("c"); // touched, but holds no state: must not appear after restore

        SortedMap<Integer, byte[]> snapshot = before.snapshot();

        KeyedStateBackend<String> after = backend(0, 1);
        after.restore(snapshot);
        ValueState<Long> count2 = after.state(COUNT);
        ListState<String> seen2 = after.state(SEEN);
        MapState<String, Long> byTag2 = after.state(BY_TAG);
        ReducingState<Long> max2 = after.state(MAX);
        AggregatingState<Long, String> sum2 = after.state(SUM);
        after.setCurrentKey("a");
        assertThat(count2.value()).isEqualTo(3L);
        assertThat(seen2.get()).containsExactly("x", "y");
        assertThat(byTag2.entries()).containsExactlyInAnyOrderEntriesOf(Map.of("red", 1L, "blue", 2L));
        assertThat(max2.get()).isEqualTo(9L);
        assertThat(sum2.get()).isEqualTo("sum=11");
        after.setCurrentKey("b");
        assertThat(count2.value()).isEqualTo(7L);
        assertThat(seen2.get()).containsExactly("z");
        assertThat(byTag2.entries()).isEmpty();
        assertThat(max2.get()).isNull();
        assertThat(sum2.get()).isNull();
        after.setCurrentKey("c");
        assertThat(count2.value()).isNull();
        assertThat(seen2.get()).isEmpty();

        // Restored state keeps working: the reduce and aggregate functions continue from it.
        after.setCurrentKey("a");
        max2.add(10L);
        sum2.add(1L);
        assertThat(max2.get()).isEqualTo(10L);
        assertThat(sum2.get()).isEqualTo("sum=12");
    }

    @Test
    void clearedStateIsNotInTheSnapshot() throws Exception {
        KeyedStateBackend<String> backend = backend(0, 1);
        ValueState<Long> count = backend.state(COUNT);
        MapState<String, Long> byTag = backend.state(BY_TAG);
        backend.setCurrentKey("a");
        count.update(1L);
        byTag.put("t", 1L);
        count.clear();
        byTag.remove("t");

        assertThat(backend.snapshot()).isEmpty();
    }

    @Test
    void restoreAtHigherAndLowerParallelismGivesEachKeyToTheSubtaskOwningItsGroup() throws Exception {
        List<String> keys = keys(200);
        Map<String, Long> expected = new HashMap<>();
        SortedMap<Integer, byte[]> union = new TreeMap<>();
        for (int subtask = 0; subtask < 2; subtask++) {
            KeyedStateBackend<String> old = backend(subtask, 2);
            ValueState<Long> count = old.state(COUNT);
            ListState<String> seen = old.state(SEEN);
            for (int i = 0; i < keys.size(); i++) {
                String key = keys.get(i);
                if (owner(key, 2) == subtask) {
                    old.setCurrentKey(key);
                    count.update((long) i);
                    seen.add("v" + i);
                    expected.put(key, (long) i);
                }
            }
            SortedMap<Integer, byte[]> snapshot = old.snapshot();
            int former = subtask;
            assertThat(snapshot.keySet()).as("subtask %d snapshots only its own groups", subtask)
                    .allSatisfy(g -> assertThat(KeyGroups.subtaskOf(g, MAX_PARALLELISM, 2)).isEqualTo(former));
            union.putAll(snapshot);
        }
        assertThat(expected).hasSize(keys.size());

        for (int parallelism : new int[] {3, 1}) {
            for (int subtask = 0; subtask < parallelism; subtask++) {
                KeyedStateBackend<String> restored = backend(subtask, parallelism);
                restored.restore(union);
                ValueState<Long> count = restored.state(COUNT);
                ListState<String> seen = restored.state(SEEN);
                int current = subtask;
                List<String> owned = keys.stream().filter(k -> owner(k, parallelism) == current).toList();
                for (String key : owned) {
                    restored.setCurrentKey(key);
                    assertThat(count.value()).as("%s at subtask %d of %d", key, subtask, parallelism)
                            .isEqualTo(expected.get(key));
                    assertThat(seen.get()).containsExactly("v" + expected.get(key));
                }
                TreeSet<Integer> ownedGroups = owned.stream().map(k -> KeyGroups.keyGroupOf(k, MAX_PARALLELISM))
                        .collect(Collectors.toCollection(TreeSet::new));
                assertThat(restored.snapshot().keySet())
                        .as("subtask %d of %d holds exactly the groups of its keys, no foreign group", subtask,
                                parallelism)
                        .containsExactlyElementsOf(ownedGroups);
            }
        }
    }

    @Test
    void restoredStateWithoutDescriptorIsCarriedIntoTheNextSnapshotUnchanged() throws Exception {
        KeyedStateBackend<String> original = backend(0, 1);
        ValueState<Long> count = original.state(COUNT);
        ListState<String> seen = original.state(SEEN);
        for (String key : keys(20)) {
            original.setCurrentKey(key);
            count.update(1L);
            seen.add(key + "-seen");
        }
        SortedMap<Integer, byte[]> first = original.snapshot();

        // A job version that only uses "count": "seen" must survive into its checkpoints.
        KeyedStateBackend<String> countOnly = backend(0, 1);
        countOnly.restore(first);
        ValueState<Long> count2 = countOnly.state(COUNT);
        countOnly.setCurrentKey("key-0");
        count2.update(2L);
        SortedMap<Integer, byte[]> second = countOnly.snapshot();
        assertThat(second.keySet()).isEqualTo(first.keySet());

        // A later version that uses "seen" again finds it as it was.
        KeyedStateBackend<String> both = backend(0, 1);
        both.restore(second);
        ValueState<Long> count3 = both.state(COUNT);
        ListState<String> seen3 = both.state(SEEN);
        for (String key : keys(20)) {
            both.setCurrentKey(key);
            assertThat(seen3.get()).as(key).containsExactly(key + "-seen");
            assertThat(count3.value()).as(key).isEqualTo(key.equals("key-0") ? 2L : 1L);
        }
    }

    @Test
    void unclaimedStateIsRedistributedOnRescaleToo() throws Exception {
        KeyedStateBackend<String> original = backend(0, 1);
        ListState<String> seen = original.state(SEEN);
        for (String key : keys(50)) {
            original.setCurrentKey(key);
            seen.add(key);
        }
        SortedMap<Integer, byte[]> snapshot = original.snapshot();
        SortedMap<Integer, byte[]> carried = new TreeMap<>();
        for (int subtask = 0; subtask < 2; subtask++) {
            KeyedStateBackend<String> b = backend(subtask, 2);
            b.restore(snapshot);
            b.state(COUNT); // registers something else; "seen" stays unclaimed
            carried.putAll(b.snapshot());
        }
        KeyedStateBackend<String> back = backend(0, 1);
        back.restore(carried);
        ListState<String> seenAgain = back.state(SEEN);
        for (String key : keys(50)) {
            back.setCurrentKey(key);
            assertThat(seenAgain.get()).as(key).containsExactly(key);
        }
    }

    @Test
    void settingAKeyOfAnotherSubtasksRangeFails() {
        String foreign = keys(100).stream().filter(k -> owner(k, 2) == 1).findFirst().orElseThrow();
        int group = KeyGroups.keyGroupOf(foreign, MAX_PARALLELISM);
        KeyedStateBackend<String> subtask0 = backend(0, 2);

        assertThatThrownBy(() -> subtask0.setCurrentKey(foreign))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("key " + foreign + " in key group " + group)
                .hasMessageContaining("groups 0..63");
    }

    @Test
    void stateOutsideAKeyedContextFails() {
        KeyedStateBackend<String> backend = backend(0, 1);
        ValueState<Long> count = backend.state(COUNT);

        assertThatThrownBy(count::value).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'count' used outside of a keyed context");
    }

    /** A mutable accumulator (changed in place by {@code add}), as functions often use for speed. */
    private static final StateDescriptor.Aggregating<Long, long[], Long> TOTAL = StateDescriptor.aggregating("total",
            new AggregateFunction<Long, long[], Long>() {
                @Override
                public long[] createAccumulator() {
                    return new long[1];
                }

                @Override
                public long[] add(Long value, long[] accumulator) {
                    accumulator[0] += value;
                    return accumulator;
                }

                @Override
                public Long getResult(long[] accumulator) {
                    return accumulator[0];
                }
            }, new dev.onceflow.spi.serialization.SimpleVersionedSerializer<long[]>() {
                @Override
                public int version() {
                    return 1;
                }

                @Override
                public byte[] serialize(long[] value) throws java.io.IOException {
                    return Serializers.LONG.serialize(value[0]);
                }

                @Override
                public long[] deserialize(int version, byte[] bytes) throws java.io.IOException {
                    return new long[] {Serializers.LONG.deserialize(Serializers.LONG.version(), bytes)};
                }
            });

    /** Every key's values of every state kind, as text, after restoring {@code snapshot}. */
    private Map<String, String> contents(SortedMap<Integer, byte[]> snapshot, List<String> keys) throws Exception {
        KeyedStateBackend<String> restored = backend(0, 1);
        restored.restore(snapshot);
        ValueState<Long> count = restored.state(COUNT);
        ListState<String> seen = restored.state(SEEN);
        MapState<String, Long> byTag = restored.state(BY_TAG);
        ReducingState<Long> max = restored.state(MAX);
        AggregatingState<Long, Long> total = restored.state(TOTAL);
        Map<String, String> contents = new TreeMap<>();
        for (String key : keys) {
            restored.setCurrentKey(key);
            contents.put(key, count.value() + " " + seen.get() + " " + new TreeMap<>(byTag.entries()) + " "
                    + max.get() + " " + total.get());
        }
        return contents;
    }

    /** One round of writes of every kind, most of them changing values in place. */
    private static void write(KeyedStateBackend<String> backend, List<String> keys, long round) {
        ValueState<Long> count = backend.state(COUNT);
        ListState<String> seen = backend.state(SEEN);
        MapState<String, Long> byTag = backend.state(BY_TAG);
        ReducingState<Long> max = backend.state(MAX);
        AggregatingState<Long, Long> total = backend.state(TOTAL);
        for (int i = 0; i < keys.size(); i++) {
            backend.setCurrentKey(keys.get(i));
            if (i % 7 == (int) round % 7) {
                count.clear();
                seen.clear();
                byTag.clear();
                continue;
            }
            count.update(round * 1000 + i);
            seen.add("r" + round);
            byTag.put("round", round);
            if (i % 3 == 0) {
                byTag.remove("first");
            } else if (round == 0) {
                byTag.put("first", (long) i);
            }
            max.add(round * 10 + i % 10);
            total.add(round + 1);
        }
    }

    /**
     * 30,000 keys: about seven per heap segment (128 key groups of 32 segments), so a write copies
     * segments that hold other keys, and half of the keys exist only after the first barrier.
     */
    @Test
    void aFrozenSnapshotKeepsTheStateOfItsBarrierWhileWritesChangeValuesInPlace() throws Exception {
        List<String> keys = keys(30_000);
        KeyedStateBackend<String> backend = backend(0, 1);
        write(backend, keys.subList(0, 15_000), 0);
        Map<String, String> atFirst = contents(backend.snapshot(), keys);

        KeyedStateBackend.Snapshot first = backend.freeze();
        write(backend, keys, 1);
        Map<String, String> atSecond = contents(backend.snapshot(), keys);
        KeyedStateBackend.Snapshot second = backend.freeze();
        write(backend, keys, 2);
        Map<String, String> now = contents(backend.snapshot(), keys);

        // Serialized after all the writes (as the snapshot thread may), yet each is its barrier's state.
        assertThat(contents(first.serialize(), keys)).isEqualTo(atFirst);
        assertThat(contents(second.serialize(), keys)).isEqualTo(atSecond);
        assertThat(atFirst).isNotEqualTo(atSecond);
        assertThat(atSecond).isNotEqualTo(now);
        backend.setCurrentKey("key-4");
        assertThat(backend.state(SEEN).get()).containsExactly("r0", "r1", "r2");
        assertThat(backend.state(TOTAL).get()).isEqualTo(1 + 2 + 3);
        assertThat(atFirst.get("key-4")).isEqualTo("4 [r0] {first=4, round=0} 4 1");
    }

    /**
     * A running count (read, then write back) over 2,000 keys with a barrier after every 500
     * records, some of them between a key's read and its write, and some while a key stays set
     * across the barrier: each snapshot holds exactly the counts at its barrier. Guards the
     * heap backend's one-lookup access, which writes a value in place only when no snapshot can
     * hold it.
     */
    @Test
    void readModifyWriteAcrossBarriersLeavesEachSnapshotWithTheCountsOfItsBarrier() throws Exception {
        List<String> keys = keys(2_000);
        KeyedStateBackend<String> backend = backend(0, 1);
        ValueState<Long> count = backend.state(COUNT);
        Map<String, Long> expected = new HashMap<>();
        List<KeyedStateBackend.Snapshot> snapshots = new java.util.ArrayList<>();
        List<Map<String, Long>> atBarrier = new java.util.ArrayList<>();
        for (int record = 0; record < 6_000; record++) {
            String key = keys.get((record * 7) % keys.size());
            backend.setCurrentKey(key);
            Long previous = count.value();
            if (record % 500 == 250) {
                // The barrier between this record's read and its write.
                atBarrier.add(new HashMap<>(expected));
                snapshots.add(backend.freeze());
            }
            count.update(previous == null ? 1 : previous + 1);
            expected.merge(key, 1L, Long::sum);
            if (record % 500 == 499) {
                // The barrier after this record, the key still set: then it is written again.
                atBarrier.add(new HashMap<>(expected));
                snapshots.add(backend.freeze());
                count.update(count.value() + 1);
                expected.merge(key, 1L, Long::sum);
            }
        }
        for (int i = 0; i < snapshots.size(); i++) {
            assertThat(counts(snapshots.get(i).serialize(), keys)).as("snapshot %d", i).isEqualTo(atBarrier.get(i));
        }
        assertThat(counts(backend.snapshot(), keys)).isEqualTo(expected);
    }

    /** Every key's count after restoring {@code snapshot}, keys without one left out. */
    private Map<String, Long> counts(SortedMap<Integer, byte[]> snapshot, List<String> keys) throws Exception {
        KeyedStateBackend<String> restored = backend(0, 1);
        restored.restore(snapshot);
        ValueState<Long> count = restored.state(COUNT);
        Map<String, Long> counts = new HashMap<>();
        for (String key : keys) {
            restored.setCurrentKey(key);
            if (count.value() != null) {
                counts.put(key, count.value());
            }
        }
        return counts;
    }
}
