package dev.onceflow.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.runtime.state.HeapStateBackend;
import dev.onceflow.runtime.state.KeyedStateBackend;
import dev.onceflow.runtime.state.ListState;
import dev.onceflow.runtime.state.MapState;
import dev.onceflow.runtime.state.StateBackend;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.serialization.Serializers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What holds for the RocksDB backend beyond the shared state tests (which run here too, from the
 * runtime's test jar): its snapshots and the heap backend's are interchangeable, its local files
 * are gone after close, and a snapshot cannot outlive the database.
 */
class RocksDBKeyedStateBackendTest {

    private static final int MAX_PARALLELISM = 128;
    private static final StateDescriptor.Value<Long> COUNT = StateDescriptor.value("count", Serializers.LONG);
    private static final StateDescriptor.List<String> SEEN = StateDescriptor.list("seen", Serializers.STRING);
    private static final StateDescriptor.Map<String, Long> BY_TAG =
            StateDescriptor.map("by-tag", Serializers.STRING, Serializers.LONG);
    private static final List<String> KEYS = IntStream.range(0, 500).mapToObj(i -> "key-" + i).toList();

    @TempDir
    Path local;

    private KeyedStateBackend<String> open(StateBackend backend, String attempt) throws IOException {
        return backend.createKeyedStateBackend(new StateBackend.Scope("job", "count", 0, 1, MAX_PARALLELISM, attempt),
                Serializers.STRING);
    }

    private static void write(KeyedStateBackend<String> backend) {
        ValueState<Long> count = backend.state(COUNT);
        ListState<String> seen = backend.state(SEEN);
        MapState<String, Long> byTag = backend.state(BY_TAG);
        for (int i = 0; i < KEYS.size(); i++) {
            String key = KEYS.get(i);
            backend.setCurrentKey(key);
            count.update((long) i);
            seen.add("a" + i);
            seen.add("b" + i);
            byTag.put("t" + (i % 3), (long) i * 10);
        }
    }

    /** Every key's state as text, read through the given backend. */
    private static Map<String, String> read(KeyedStateBackend<String> backend) {
        ValueState<Long> count = backend.state(COUNT);
        ListState<String> seen = backend.state(SEEN);
        MapState<String, Long> byTag = backend.state(BY_TAG);
        Map<String, String> contents = new TreeMap<>();
        for (String key : KEYS) {
            backend.setCurrentKey(key);
            contents.put(key, count.value() + " " + seen.get() + " " + new TreeMap<>(byTag.entries()));
        }
        return contents;
    }

    /** Without this the runtime's tests in this module would silently test the heap backend again. */
    @Test
    void theSharedStateTestsOfThisModuleRunAgainstRocksDB() {
        assertThat(StateBackend.fromSystemProperties()).isInstanceOf(RocksDBStateBackend.class);
    }

    @Test
    void aHeapSnapshotRestoresOnRocksDBAndBackWithEveryValueIntact() throws Exception {
        KeyedStateBackend<String> heap = open(new HeapStateBackend(), "heap");
        write(heap);
        Map<String, String> expected = read(heap);
        SortedMap<Integer, byte[]> heapSnapshot = heap.snapshot();

        try (KeyedStateBackend<String> rocks = open(new RocksDBStateBackend(local), "rocks")) {
            rocks.restore(heapSnapshot);
            assertThat(read(rocks)).isEqualTo(expected);
            SortedMap<Integer, byte[]> rocksSnapshot = rocks.snapshot();
            assertThat(rocksSnapshot.keySet()).isEqualTo(heapSnapshot.keySet());

            KeyedStateBackend<String> back = open(new HeapStateBackend(), "back");
            back.restore(rocksSnapshot);
            assertThat(read(back)).isEqualTo(expected);
        }
    }

    @Test
    void closingDeletesTheLocalDatabaseAndASnapshotNotYetWrittenThenFailsInsteadOfCrashing() throws Exception {
        KeyedStateBackend<String> rocks = open(new RocksDBStateBackend(local), "a1");
        write(rocks);
        Path directory = local.resolve("job").resolve("count").resolve("subtask-0-a1");
        assertThat(directory).isDirectory();
        KeyedStateBackend.Snapshot pending = rocks.freeze();

        rocks.close();
        rocks.close();

        assertThat(directory).doesNotExist();
        assertThatThrownBy(pending::serialize).isInstanceOf(IOException.class).hasMessageContaining("closed");
        assertThatThrownBy(rocks::freeze).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void aNewAttemptStartsFromAnEmptyDatabaseEvenWhereAnEarlierRunLeftFiles() throws Exception {
        Path directory = local.resolve("job").resolve("count").resolve("subtask-0-a1");
        Files.createDirectories(directory);
        Files.writeString(directory.resolve("LOCK"), "left by a killed process");
        try (KeyedStateBackend<String> rocks = open(new RocksDBStateBackend(local), "a1")) {
            rocks.setCurrentKey("key-1");
            assertThat(rocks.state(COUNT).value()).isNull();
        }
    }

    @Test
    void writesAfterFreezeAreNotInThatSnapshot() throws Exception {
        try (KeyedStateBackend<String> rocks = open(new RocksDBStateBackend(local), "a1")) {
            write(rocks);
            Map<String, String> atBarrier = read(rocks);
            KeyedStateBackend.Snapshot frozen = rocks.freeze();
            ValueState<Long> count = rocks.state(COUNT);
            ListState<String> seen = rocks.state(SEEN);
            for (String key : KEYS) {
                rocks.setCurrentKey(key);
                count.update(-1L);
                seen.clear();
            }
            rocks.setCurrentKey("key-0");
            rocks.state(StateDescriptor.value("registered-later", Serializers.LONG)).update(7L);
            SortedMap<Integer, byte[]> snapshot = frozen.serialize();

            KeyedStateBackend<String> restored = open(new HeapStateBackend(), "check");
            restored.restore(snapshot);
            assertThat(read(restored)).isEqualTo(atBarrier);
        }
    }
}
