package dev.onceflow.runtime.checkpoint;

import static dev.onceflow.runtime.checkpoint.CheckpointFixtures.metadata;
import static dev.onceflow.runtime.checkpoint.CheckpointFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.RestoredState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The three redistribution rules of {@link OperatorSnapshot}: list state spreads evenly, subtask
 * state moves whole to {@code former % parallelism}, keyed state is offered to everyone (the
 * backend keeps its own groups).
 */
class RestoredCheckpointTest {

    private static final String UID = "op";

    @TempDir
    Path root;

    /**
     * Writes a checkpoint of operator {@link #UID} at {@code parallelism}: former subtask {@code j}
     * holds list entries {@code "s<j>-<i>"} ({@code listSizes[j]} of them), subtask entry
     * {@code "txn-<j>"} and key group {@code j}.
     */
    private RestoredCheckpoint checkpoint(int... listSizes) throws Exception {
        CheckpointStorage storage = new CheckpointStorage(CheckpointLocation.of(root.resolve("job")));
        int parallelism = listSizes.length;
        List<CheckpointMetadata.TaskStateRef> refs = new ArrayList<>();
        for (int j = 0; j < parallelism; j++) {
            List<byte[]> splits = new ArrayList<>();
            for (int i = 0; i < listSizes[j]; i++) {
                splits.add(utf8("s" + j + "-" + i));
            }
            TreeMap<Integer, byte[]> keyed = new TreeMap<>(Map.of(j, utf8("group-" + j)));
            OperatorSnapshot snapshot = new OperatorSnapshot(Map.of("splits", splits),
                    Map.of("pending", List.of(utf8("txn-" + j))), keyed);
            refs.add(storage.writeTaskState(7, CheckpointKind.CHECKPOINT, "stage1", List.of(UID), j, parallelism,
                    Map.of(UID, snapshot)));
        }
        storage.writeMetadata(metadata(7, CheckpointKind.CHECKPOINT, refs));
        return storage.latestValid().orElseThrow();
    }

    private static List<String> strings(List<byte[]> values) {
        return values.stream().map(CheckpointFixtures::string).toList();
    }

    @Test
    void atEqualParallelismEverySubtaskGetsItsOwnEntriesBack() throws Exception {
        RestoredCheckpoint checkpoint = checkpoint(3, 1);

        RestoredState first = checkpoint.stateFor(UID, 0, 2);
        RestoredState second = checkpoint.stateFor(UID, 1, 2);

        assertThat(strings(first.list("splits"))).containsExactly("s0-0", "s0-1", "s0-2");
        assertThat(strings(second.list("splits"))).containsExactly("s1-0");
        assertThat(strings(first.subtaskList("pending"))).containsExactly("txn-0");
        assertThat(strings(second.subtaskList("pending"))).containsExactly("txn-1");
        assertThat(first.checkpointId()).hasValue(7);
        assertThat(first.previousParallelism()).isEqualTo(2);
        assertThat(first.isRestored()).isTrue();
    }

    @Test
    void onScaleUpListEntriesSpreadEvenlyAndEachGoesToExactlyOneSubtask() throws Exception {
        RestoredCheckpoint checkpoint = checkpoint(4, 1); // skewed on purpose

        List<List<String>> shares = new ArrayList<>();
        for (int subtask = 0; subtask < 3; subtask++) {
            shares.add(strings(checkpoint.stateFor(UID, subtask, 3).list("splits")));
        }

        assertThat(shares).extracting(List::size).containsExactly(2, 2, 1);
        assertThat(shares.stream().flatMap(List::stream))
                .containsExactlyInAnyOrder("s0-0", "s0-1", "s0-2", "s0-3", "s1-0");
        assertThat(checkpoint.stateFor(UID, 2, 3).previousParallelism()).isEqualTo(2);
    }

    @Test
    void onScaleDownToOneTheSingleSubtaskGetsEveryEntry() throws Exception {
        RestoredCheckpoint checkpoint = checkpoint(2, 3);

        RestoredState only = checkpoint.stateFor(UID, 0, 1);

        assertThat(strings(only.list("splits"))).containsExactlyInAnyOrder("s0-0", "s0-1", "s1-0", "s1-1", "s1-2");
        assertThat(strings(only.subtaskList("pending"))).containsExactlyInAnyOrder("txn-0", "txn-1");
    }

    @Test
    void subtaskStateOfFormerSubtaskJGoesWholeToJModuloParallelism() throws Exception {
        RestoredCheckpoint checkpoint = checkpoint(1, 1, 1, 1, 1); // five former subtasks

        assertThat(strings(checkpoint.stateFor(UID, 0, 2).subtaskList("pending")))
                .containsExactlyInAnyOrder("txn-0", "txn-2", "txn-4");
        assertThat(strings(checkpoint.stateFor(UID, 1, 2).subtaskList("pending")))
                .containsExactlyInAnyOrder("txn-1", "txn-3");
        for (int subtask = 0; subtask < 5; subtask++) {
            assertThat(strings(checkpoint.stateFor(UID, subtask, 7).subtaskList("pending")))
                    .as("scale up 5 -> 7, subtask %d", subtask)
                    .containsExactly("txn-" + subtask);
        }
        assertThat(checkpoint.stateFor(UID, 5, 7).subtaskList("pending")).isEmpty();
        assertThat(checkpoint.stateFor(UID, 6, 7).subtaskList("pending")).isEmpty();
    }

    @Test
    void everySubtaskIsOfferedEveryKeyGroup() throws Exception {
        RestoredCheckpoint checkpoint = checkpoint(0, 0, 0);

        for (int parallelism : new int[] {1, 2, 3, 4}) {
            for (int subtask = 0; subtask < parallelism; subtask++) {
                assertThat(checkpoint.stateFor(UID, subtask, parallelism).keyedState())
                        .as("subtask %d of %d", subtask, parallelism).containsOnlyKeys(0, 1, 2);
            }
        }
    }

    @Test
    void keyGroupsAreReadFromTheirFilesOneAtATimeWhenABackendAsksForThem() throws Exception {
        // Two former subtasks with 100 key groups each, of 0 bytes to 200 KiB (several copy buffers).
        CheckpointStorage storage = new CheckpointStorage(CheckpointLocation.of(root.resolve("job")));
        java.util.SplittableRandom random = new java.util.SplittableRandom(11);
        Map<Integer, byte[]> written = new TreeMap<>();
        List<CheckpointMetadata.TaskStateRef> refs = new ArrayList<>();
        for (int j = 0; j < 2; j++) {
            TreeMap<Integer, byte[]> keyed = new TreeMap<>();
            for (int group = j * 100; group < (j + 1) * 100; group++) {
                byte[] blob = new byte[group % 10 == 0 ? 200 * 1024 + group : random.nextInt(2_000)];
                random.nextBytes(blob);
                keyed.put(group, blob);
            }
            written.putAll(keyed);
            refs.add(storage.writeTaskState(7, CheckpointKind.CHECKPOINT, "stage1", List.of(UID), j, 2,
                    Map.of(UID, new OperatorSnapshot(Map.of(), Map.of(), keyed))));
        }
        storage.writeMetadata(metadata(7, CheckpointKind.CHECKPOINT, refs));

        RestoredState state = storage.latestValid().orElseThrow().stateFor(UID, 0, 1);

        assertThat(state.keyedState()).as("not read into memory at load").isInstanceOf(StoredKeyGroups.class)
                .containsOnlyKeys(written.keySet());
        for (Map.Entry<Integer, byte[]> group : written.entrySet()) {
            assertThat(state.keyedState().get(group.getKey())).as("key group %d", group.getKey())
                    .isEqualTo(group.getValue());
        }
        // Read when asked, from the file, and checked to be what was verified: a file changed or
        // gone after loading fails the read of its groups only.
        Path second = root.resolve("job").resolve("chk-7").resolve("stage1-1.state");
        byte[] changed = java.nio.file.Files.readAllBytes(second);
        for (int i = 0; i < changed.length; i++) {
            changed[i] ^= 0x5a;
        }
        java.nio.file.Files.write(second, changed);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> state.keyedState().get(110))
                .isInstanceOf(java.io.UncheckedIOException.class).hasMessageContaining("fails its checksum");
        java.nio.file.Files.delete(second);
        assertThat(state.keyedState().get(5)).isEqualTo(written.get(5));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> state.keyedState().get(105))
                .isInstanceOf(java.io.UncheckedIOException.class).hasMessageContaining("key group 105");
    }

    @Test
    void anOperatorWithoutStateGetsAnEmptyButRestoredShare() throws Exception {
        RestoredCheckpoint checkpoint = checkpoint(1);

        RestoredState state = checkpoint.stateFor("new-operator", 0, 4);

        assertThat(state.isRestored()).isTrue();
        assertThat(state.checkpointId()).hasValue(7);
        assertThat(state.previousParallelism()).isEqualTo(4);
        assertThat(state.listState()).isEmpty();
        assertThat(state.subtaskState()).isEmpty();
        assertThat(state.keyedState()).isEmpty();
    }
}
