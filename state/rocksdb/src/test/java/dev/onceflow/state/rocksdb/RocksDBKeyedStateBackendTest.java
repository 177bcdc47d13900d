package dev.onceflow.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.checkpoint.CheckpointStorage;
import dev.onceflow.runtime.state.HeapStateBackend;
import dev.onceflow.runtime.state.KeyGroups;
import dev.onceflow.runtime.state.KeyedStateBackend;
import dev.onceflow.runtime.state.ListState;
import dev.onceflow.runtime.state.MapState;
import dev.onceflow.runtime.state.NativeKeyedState;
import dev.onceflow.runtime.state.SharedStateStore;
import dev.onceflow.runtime.state.StateBackend;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.serialization.Serializers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.IntStream;
import java.util.stream.Stream;
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
    void aFullSnapshotGoesThroughALocalFileThatIsDeletedOnceWrittenAndAnEmptyOneLeavesNone() throws Exception {
        Path subtasks = local.resolve("job").resolve("count");
        try (KeyedStateBackend<String> rocks = open(new RocksDBStateBackend(local), "a1")) {
            assertThat(rocks.freeze().serialize()).as("nothing to snapshot yet").isEmpty();
            assertThat(snapshotFiles(subtasks)).as("an empty snapshot leaves no file").isEmpty();
            write(rocks);

            SortedMap<Integer, byte[]> groups = rocks.freeze().serialize();

            assertThat(groups).as("written to a local file, not the heap")
                    .isInstanceOf(dev.onceflow.runtime.checkpoint.StoredKeyGroups.class);
            assertThat(snapshotFiles(subtasks)).hasSize(1);
            Map<String, String> expected = read(rocks);
            try (KeyedStateBackend<String> heap = open(new HeapStateBackend(), "heap")) {
                heap.restore(groups);
                assertThat(read(heap)).as("every value, read back from the file").isEqualTo(expected);
            }
            ((AutoCloseable) groups).close();
            assertThat(snapshotFiles(subtasks)).as("deleted when closed (after its state file was written)").isEmpty();
        }
    }

    private static List<Path> snapshotFiles(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(f -> f.getFileName().toString().contains(".snapshot-")).toList();
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

    /** Where the tests' job keeps its checkpoints. */
    private Path checkpointStorage() {
        return local.resolve("checkpoint-storage");
    }

    /** The shared-state store of checkpoint storage at {@code job}. */
    private static SharedStateStore sharedStore(Path job) throws IOException {
        return new CheckpointStorage(CheckpointLocation.of(job)).sharedState();
    }

    private static KeyedStateBackend.SnapshotOptions checkpoint(long id, long base, SharedStateStore shared) {
        return new KeyedStateBackend.SnapshotOptions(id, false, base, shared);
    }

    private static Set<String> sharedOnDisk(Path job) throws IOException {
        Set<String> files = new TreeSet<>();
        if (!Files.isDirectory(job.resolve("shared"))) {
            return files;
        }
        try (Stream<Path> entries = Files.list(job.resolve("shared"))) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                try (Stream<Path> inside = Files.list(entry)) {
                    inside.forEach(f -> files.add("shared/" + entry.getFileName() + "/" + f.getFileName()));
                }
            }
        }
        return files;
    }

    @Test
    void anIncrementalCheckpointUploadsOnlyTheFilesItsBaseDoesNotListAndRestoresAtAnyParallelism() throws Exception {
        Path job = checkpointStorage();
        SharedStateStore shared = sharedStore(job);
        try (KeyedStateBackend<String> rocks = open(new RocksDBStateBackend(local), "a1")) {
            write(rocks);
            NativeKeyedState first = rocks.freeze(checkpoint(1, -1, shared)).write().nativeState();
            assertThat(first).isNotNull();
            assertThat(sharedOnDisk(job)).as("the first checkpoint uploads every SST file")
                    .containsExactlyInAnyOrderElementsOf(first.sharedFiles());

            ValueState<Long> count = rocks.state(COUNT);
            rocks.setCurrentKey("key-7");
            count.update(7_000L);
            NativeKeyedState second = rocks.freeze(checkpoint(2, 1, shared)).write().nativeState();
            Map<String, String> expected = read(rocks);

            Set<String> reused = new TreeSet<>(second.sharedFiles());
            reused.retainAll(first.sharedFiles());
            Set<String> uploaded = new TreeSet<>(second.sharedFiles());
            uploaded.removeAll(first.sharedFiles());
            assertThat(reused).as("files of checkpoint 1 that checkpoint 2 lists without uploading").isNotEmpty();
            assertThat(uploaded).as("the one file the new write made").hasSize(1);
            Set<String> union = new TreeSet<>(first.sharedFiles());
            union.addAll(second.sharedFiles());
            assertThat(sharedOnDisk(job)).isEqualTo(union);

            // Same range: the files become the new database.
            try (KeyedStateBackend<String> same = open(new RocksDBStateBackend(local), "a2")) {
                same.restore(Map.of(), List.of(second), shared);
                assertThat(read(same)).isEqualTo(expected);
            }
            // Two subtasks: each copies the key groups it owns.
            Map<String, String> rescaled = new TreeMap<>();
            for (int subtask = 0; subtask < 2; subtask++) {
                try (KeyedStateBackend<String> half = new RocksDBStateBackend(local).createKeyedStateBackend(
                        new StateBackend.Scope("job", "count", subtask, 2, MAX_PARALLELISM, "r" + subtask),
                        Serializers.STRING)) {
                    half.restore(Map.of(), List.of(second), shared);
                    ValueState<Long> restoredCount = half.state(COUNT);
                    for (String key : KEYS) {
                        int group = KeyGroups.keyGroupOf(key, MAX_PARALLELISM);
                        if (KeyGroups.subtaskOf(group, MAX_PARALLELISM, 2) == subtask) {
                            half.setCurrentKey(key);
                            rescaled.put(key, String.valueOf(restoredCount.value()));
                        }
                    }
                    int owner = subtask;
                    assertThat(half.snapshot().keySet()).as("subtask %d holds only its own key groups", subtask)
                            .isNotEmpty().allMatch(g -> KeyGroups.subtaskOf(g, MAX_PARALLELISM, 2) == owner);
                }
            }
            Map<String, String> expectedCounts = new TreeMap<>();
            expected.forEach((key, text) -> expectedCounts.put(key, text.substring(0, text.indexOf(' '))));
            assertThat(rescaled).isEqualTo(expectedCounts);
        }
    }

    /** Incremental checkpoints capture their files on the snapshot thread, after the barrier. */
    @Test
    void writesAfterTheBarrierOfAnIncrementalCheckpointAreNotInIt() throws Exception {
        SharedStateStore shared = sharedStore(checkpointStorage());
        try (KeyedStateBackend<String> rocks = open(new RocksDBStateBackend(local), "a1")) {
            write(rocks);
            // About 20 MB in the write buffers at the barrier, so their flush takes long enough
            // that a capture which did not wait for it would miss them.
            Map<String, Integer> bigAtBarrier = writeBig(rocks, 20_000);
            Map<String, String> atBarrier = read(rocks);
            KeyedStateBackend.Snapshot frozen = rocks.freeze(checkpoint(1, -1, shared));
            overwriteEveryKey(rocks);
            writeBig(rocks, 100);

            NativeKeyedState state = frozen.write().nativeState();

            try (KeyedStateBackend<String> restored = open(new RocksDBStateBackend(local), "a2")) {
                restored.restore(Map.of(), List.of(state), shared);
                assertThat(read(restored)).isEqualTo(atBarrier);
                assertThat(readBig(restored, 20_000)).isEqualTo(bigAtBarrier);
            }
            assertThat(read(rocks)).as("the writes after the barrier stay in the live database")
                    .allSatisfy((key, text) -> assertThat(text).startsWith("-1 []"));
        }
    }

    /**
     * If a write buffer of writes made after the barrier is flushed before the snapshot thread
     * captures the files, the live files are not the barrier's state: the checkpoint is written
     * in full from the barrier's RocksDB snapshot instead, and the next one has no files to refer to.
     */
    @Test
    void anIncrementalCheckpointWhoseFilesWouldHoldLaterWritesIsWrittenInFullAsOfItsBarrier() throws Exception {
        SharedStateStore shared = sharedStore(checkpointStorage());
        try (KeyedStateBackend<String> rocks = open(new RocksDBStateBackend(local), "a1")) {
            write(rocks);
            Map<String, String> atFirstBarrier = read(rocks);
            KeyedStateBackend.Snapshot frozen = rocks.freeze(checkpoint(1, -1, shared));
            overwriteEveryKey(rocks);
            ((RocksDBKeyedStateBackend<String>) rocks).flushWriteBuffers();

            KeyedStateBackend.Result first = frozen.write();

            assertThat(first.nativeState()).as("not the live files, which hold later writes").isNull();
            try (KeyedStateBackend<String> restored = open(new RocksDBStateBackend(local), "a2")) {
                restored.restore(first.keyGroups());
                assertThat(read(restored)).isEqualTo(atFirstBarrier);
            }
            closeIfStored(first.keyGroups());

            Map<String, String> atSecondBarrier = read(rocks);
            NativeKeyedState second = rocks.freeze(checkpoint(2, 1, shared)).write().nativeState();
            assertThat(second.uploadedBytes()).as("checkpoint 1 listed no files, so every file is uploaded")
                    .isEqualTo(second.sharedBytes()).isPositive();
            try (KeyedStateBackend<String> restored = open(new RocksDBStateBackend(local), "a3")) {
                restored.restore(Map.of(), List.of(second), shared);
                assertThat(read(restored)).isEqualTo(atSecondBarrier);
            }
        }
    }

    /**
     * A checkpoint where one subtask wrote its state in full and the other incrementally restores
     * at the same parallelism, and the second still adopts its files as its database instead of
     * copying them entry by entry (copied entries would sit in write buffers, not SST files).
     */
    @Test
    void aSubtaskAdoptsItsFilesEvenWhenAnotherSubtaskWroteItsCheckpointInFull() throws Exception {
        Path job = checkpointStorage();
        SharedStateStore shared = sharedStore(job);
        RocksDBStateBackend backend = new RocksDBStateBackend(local);
        Map<Integer, byte[]> fullOfSubtask0;
        NativeKeyedState incrementalOfSubtask1;
        Map<String, String> expected = new TreeMap<>();
        try (KeyedStateBackend<String> first = subtask(backend, 0, "a1");
                KeyedStateBackend<String> second = subtask(backend, 1, "a1")) {
            writeOwnKeys(first, 0);
            writeOwnKeys(second, 1);
            expected.putAll(readOwnKeys(first, 0));
            expected.putAll(readOwnKeys(second, 1));
            KeyedStateBackend.Snapshot frozen = first.freeze(checkpoint(1, -1, shared));
            overwriteOwnKeys(first, 0);
            ((RocksDBKeyedStateBackend<String>) first).flushWriteBuffers();
            KeyedStateBackend.Result full = frozen.write();
            assertThat(full.nativeState()).isNull();
            fullOfSubtask0 = new TreeMap<>(full.keyGroups());
            closeIfStored(full.keyGroups());
            incrementalOfSubtask1 = second.freeze(checkpoint(1, -1, shared)).write().nativeState();
        }

        Map<String, String> restored = new TreeMap<>();
        for (int subtask = 0; subtask < 2; subtask++) {
            try (KeyedStateBackend<String> half = subtask(backend, subtask, "a2")) {
                half.restore(fullOfSubtask0, List.of(incrementalOfSubtask1), shared);
                restored.putAll(readOwnKeys(half, subtask));
                if (subtask == 1) {
                    try (Stream<Path> files = Files.list(local.resolve("job").resolve("count").resolve("subtask-1-a2"))) {
                        assertThat(files.map(f -> f.getFileName().toString()))
                                .as("the checkpoint's SST files became the database").anyMatch(f -> f.endsWith(".sst"));
                    }
                }
            }
        }
        assertThat(restored).isEqualTo(expected);
    }

    private KeyedStateBackend<String> subtask(RocksDBStateBackend backend, int subtask, String attempt)
            throws IOException {
        return backend.createKeyedStateBackend(
                new StateBackend.Scope("job", "count", subtask, 2, MAX_PARALLELISM, attempt), Serializers.STRING);
    }

    /** Whether subtask {@code subtask} of 2 owns {@code key}. */
    private static boolean owns(int subtask, String key) {
        return KeyGroups.subtaskOf(KeyGroups.keyGroupOf(key, MAX_PARALLELISM), MAX_PARALLELISM, 2) == subtask;
    }

    private static void writeOwnKeys(KeyedStateBackend<String> backend, int subtask) {
        ValueState<Long> count = backend.state(COUNT);
        for (int i = 0; i < KEYS.size(); i++) {
            if (owns(subtask, KEYS.get(i))) {
                backend.setCurrentKey(KEYS.get(i));
                count.update((long) i);
            }
        }
    }

    private static void overwriteOwnKeys(KeyedStateBackend<String> backend, int subtask) {
        ValueState<Long> count = backend.state(COUNT);
        for (String key : KEYS) {
            if (owns(subtask, key)) {
                backend.setCurrentKey(key);
                count.update(-1L);
            }
        }
    }

    private static Map<String, String> readOwnKeys(KeyedStateBackend<String> backend, int subtask) {
        ValueState<Long> count = backend.state(COUNT);
        Map<String, String> values = new TreeMap<>();
        for (String key : KEYS) {
            if (owns(subtask, key)) {
                backend.setCurrentKey(key);
                values.put(key, String.valueOf(count.value()));
            }
        }
        return values;
    }

    /** A checkpoint aborted before its snapshot was written must not hold its RocksDB snapshot for good. */
    @Test
    void theSnapshotOfACheckpointNeverWrittenIsReleasedOnceALaterOneCompleted() throws Exception {
        SharedStateStore shared = sharedStore(checkpointStorage());
        try (KeyedStateBackend<String> rocks = open(new RocksDBStateBackend(local), "a1")) {
            RocksDBKeyedStateBackend<String> backend = (RocksDBKeyedStateBackend<String>) rocks;
            write(rocks);
            KeyedStateBackend.Snapshot abandoned = rocks.freeze(checkpoint(1, -1, shared));
            rocks.freeze(checkpoint(2, -1, shared)).write();
            assertThat(backend.snapshotsHeld()).as("checkpoint 1 may still be written").isEqualTo(1);

            KeyedStateBackend.Snapshot third = rocks.freeze(checkpoint(3, 2, shared));
            assertThat(backend.snapshotsHeld()).as("only checkpoint 3's").isEqualTo(1);
            assertThatThrownBy(abandoned::write).isInstanceOf(IOException.class).hasMessageContaining("abandoned");
            third.write();
            assertThat(backend.snapshotsHeld()).isZero();
        }
    }

    private static void closeIfStored(Map<Integer, byte[]> keyGroups) throws Exception {
        if (keyGroups instanceof AutoCloseable stored) {
            stored.close();
        }
    }

    private static final StateDescriptor.Value<String> BIG = StateDescriptor.value("big", Serializers.STRING);

    /** Writes 1,000 random characters for each of {@code keys} keys; returns each key's value's hash. */
    private static Map<String, Integer> writeBig(KeyedStateBackend<String> backend, int keys) {
        java.util.Random random = new java.util.Random(keys);
        ValueState<String> big = backend.state(BIG);
        Map<String, Integer> hashes = new TreeMap<>();
        for (int i = 0; i < keys; i++) {
            StringBuilder value = new StringBuilder(1_000);
            random.ints(1_000, 'a', 'z' + 1).forEach(c -> value.append((char) c));
            backend.setCurrentKey("big-" + i);
            big.update(value.toString());
            hashes.put("big-" + i, value.toString().hashCode());
        }
        return hashes;
    }

    private static Map<String, Integer> readBig(KeyedStateBackend<String> backend, int keys) {
        ValueState<String> big = backend.state(BIG);
        Map<String, Integer> hashes = new TreeMap<>();
        for (int i = 0; i < keys; i++) {
            backend.setCurrentKey("big-" + i);
            String value = big.value();
            hashes.put("big-" + i, value == null ? null : value.hashCode());
        }
        return hashes;
    }

    private static void overwriteEveryKey(KeyedStateBackend<String> backend) {
        ValueState<Long> count = backend.state(COUNT);
        ListState<String> seen = backend.state(SEEN);
        for (String key : KEYS) {
            backend.setCurrentKey(key);
            count.update(-1L);
            seen.clear();
        }
    }

    @Test
    void theHeapBackendRefusesAnIncrementalRocksDBCheckpointNamingTheWayOut() throws Exception {
        SharedStateStore shared = sharedStore(checkpointStorage());
        NativeKeyedState state;
        try (KeyedStateBackend<String> rocks = open(new RocksDBStateBackend(local), "a1")) {
            write(rocks);
            state = rocks.freeze(checkpoint(1, -1, shared)).write().nativeState();
        }
        KeyedStateBackend<String> heap = open(new HeapStateBackend(), "heap");
        assertThatThrownBy(() -> heap.restore(Map.of(), List.of(state), shared))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'rocksdb' backend").hasMessageContaining("savepoint");
    }

    @Test
    void aSavepointOfAnIncrementalBackendIsPortable() throws Exception {
        SharedStateStore shared = sharedStore(local.resolve("storage"));
        try (KeyedStateBackend<String> rocks = open(new RocksDBStateBackend(local), "a1")) {
            write(rocks);
            KeyedStateBackend.Result savepoint = rocks.freeze(new KeyedStateBackend.SnapshotOptions(1, true, -1, shared))
                    .write();
            assertThat(savepoint.nativeState()).isNull();
            KeyedStateBackend<String> heap = open(new HeapStateBackend(), "heap");
            heap.restore(savepoint.keyGroups());
            assertThat(read(heap)).isEqualTo(read(rocks));
        }
    }
}
