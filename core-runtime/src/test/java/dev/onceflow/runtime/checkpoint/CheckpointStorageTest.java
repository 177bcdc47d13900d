package dev.onceflow.runtime.checkpoint;

import static dev.onceflow.runtime.checkpoint.CheckpointFixtures.METADATA;
import static dev.onceflow.runtime.checkpoint.CheckpointFixtures.complete;
import static dev.onceflow.runtime.checkpoint.CheckpointFixtures.cut;
import static dev.onceflow.runtime.checkpoint.CheckpointFixtures.flipByte;
import static dev.onceflow.runtime.checkpoint.CheckpointFixtures.incomplete;
import static dev.onceflow.runtime.checkpoint.CheckpointFixtures.stateFile;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.runtime.state.NativeKeyedState;
import dev.onceflow.runtime.state.OperatorSnapshot;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Only a complete, intact checkpoint is ever restored; pruning never loses the user's savepoints. */
class CheckpointStorageTest {

    @TempDir
    Path root;

    CheckpointStorage storage;

    @BeforeEach
    void setUp() throws Exception {
        storage = new CheckpointStorage(CheckpointLocation.of(root.resolve("job")));
    }

    private long latestValidId() throws Exception {
        return storage.latestValid().orElseThrow().checkpointId();
    }

    private String[] remaining() throws Exception {
        try (Stream<Path> dirs = Files.list(storage.jobDirectory().toPath())) {
            return dirs.map(p -> p.getFileName().toString()).sorted().toArray(String[]::new);
        }
    }

    @Test
    void aCompleteCheckpointLoadsWithItsState() throws Exception {
        complete(storage, 1, CheckpointKind.CHECKPOINT);

        RestoredCheckpoint restored = storage.latestValid().orElseThrow();

        assertThat(restored.checkpointId()).isEqualTo(1);
        assertThat(restored.metadata().kind()).isEqualTo(CheckpointKind.CHECKPOINT);
        assertThat(restored.directory()).isEqualTo(storage.jobDirectory().resolve("chk-1"));
        assertThat(restored.operatorUids()).containsExactly("source");
        assertThat(restored.stateFor("source", 0, 1).list("splits")).extracting(CheckpointFixtures::string)
                .containsExactly("split@1");
    }

    @Test
    void noCheckpointDirectoryMeansNothingToRestore() throws Exception {
        assertThat(storage.latestValid()).isEmpty();
        assertThat(storage.highestId()).isZero();
    }

    @Test
    void latestValidIsTheNewestCompleteCheckpointOrSavepoint() throws Exception {
        complete(storage, 1, CheckpointKind.CHECKPOINT);
        complete(storage, 2, CheckpointKind.SAVEPOINT);
        assertThat(latestValidId()).isEqualTo(2);

        complete(storage, 10, CheckpointKind.CHECKPOINT); // 10 > 2 numerically, not just as text
        assertThat(latestValidId()).isEqualTo(10);
    }

    @Test
    void aCheckpointWithAFlippedByteInAStateFileIsSkipped() throws Exception {
        complete(storage, 1, CheckpointKind.CHECKPOINT);
        Path newest = complete(storage, 2, CheckpointKind.CHECKPOINT);
        flipByte(stateFile(newest));

        RestoredCheckpoint restored = storage.latestValid().orElseThrow();

        assertThat(restored.checkpointId()).isEqualTo(1);
        assertThat(restored.stateFor("source", 0, 1).list("splits")).extracting(CheckpointFixtures::string)
                .containsExactly("split@1");
    }

    @Test
    void aCheckpointWhoseMetadataIsCutIsSkipped() throws Exception {
        complete(storage, 1, CheckpointKind.CHECKPOINT);
        Path newest = complete(storage, 2, CheckpointKind.CHECKPOINT);
        cut(newest.resolve(CheckpointFixtures.METADATA));

        assertThat(latestValidId()).isEqualTo(1);
    }

    @Test
    void aCheckpointWithAMissingStateFileIsSkipped() throws Exception {
        complete(storage, 1, CheckpointKind.CHECKPOINT);
        Path newest = complete(storage, 2, CheckpointKind.CHECKPOINT);
        Files.delete(stateFile(newest));

        assertThat(latestValidId()).isEqualTo(1);
        assertThatThrownBy(() -> CheckpointStorage.load(CheckpointLocation.of(newest))).isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining("state file stage0-0.state is missing");
    }

    @Test
    void directoriesWithoutMetadataAreNotCandidates() throws Exception {
        complete(storage, 1, CheckpointKind.CHECKPOINT);
        incomplete(storage, 2);
        Files.createDirectories(storage.jobDirectory().toPath().resolve("chk-3"));
        Files.createDirectories(storage.jobDirectory().toPath().resolve("not-a-checkpoint-9"));

        assertThat(latestValidId()).isEqualTo(1);
        assertThat(storage.highestId()).as("ids of incomplete checkpoints are never reused").isEqualTo(3);
    }

    @Test
    void taskStateIsWrittenInPlaceAndOnlyMetadataThroughATemporaryFile() throws Exception {
        Path dir = complete(storage, 1, CheckpointKind.CHECKPOINT);

        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("stage0-0.state", METADATA);
        }
    }

    @Test
    void aTaskFileTornBeforeItsMetadataWasWrittenIsNeverRestored() throws Exception {
        complete(storage, 1, CheckpointKind.CHECKPOINT);
        Path torn = incomplete(storage, 2);
        cut(stateFile(torn)); // CFS-6: a crash while a task file is written in place may leave it torn

        assertThat(latestValidId()).isEqualTo(1);
        assertThat(storage.highestId()).isEqualTo(2);
    }

    @Test
    void aTaskFileWhoseEncodingFailsIsRemoved() throws Exception {
        CheckpointLocation target = storage.directoryOf(1, CheckpointKind.CHECKPOINT).resolve("stage0-0.state");

        assertThatThrownBy(() -> ChecksummedFiles.writeDurably(LocalCheckpointFileSystem.INSTANCE, target, 8, out -> {
            out.writeInt(1);
            throw new java.io.IOException("encoder failed");
        })).hasMessage("encoder failed");
        assertThat(target.toPath()).doesNotExist();
    }

    @Test
    void aTaskFileIsNeverWrittenOverAnotherWritersFile() throws Exception {
        Path dir = complete(storage, 1, CheckpointKind.CHECKPOINT);
        byte[] before = Files.readAllBytes(stateFile(dir));

        // A snapshot thread of an ended attempt, still running, reaching a file of the next attempt.
        assertThatThrownBy(() -> ChecksummedFiles.writeDurably(LocalCheckpointFileSystem.INSTANCE,
                CheckpointLocation.of(stateFile(dir)), 4, out -> out.writeInt(7)))
                .isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
        assertThat(Files.readAllBytes(stateFile(dir))).isEqualTo(before);
        assertThat(latestValidId()).isEqualTo(1);
    }

    /** CFS-7: the control endpoint's secret is written readable by its owner only. */
    @Test
    void anOwnerOnlyFileIsReadableByItsOwnerOnlyAndReplacedWhole() throws Exception {
        Path dir = Files.createDirectories(root.resolve("job"));
        CheckpointLocation file = CheckpointLocation.of(dir.resolve("secret"));

        LocalCheckpointFileSystem.INSTANCE.writeAtomicallyOwnerOnly(file, "first, longer".getBytes(StandardCharsets.UTF_8));
        LocalCheckpointFileSystem.INSTANCE.writeAtomicallyOwnerOnly(file, "second".getBytes(StandardCharsets.UTF_8));

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.toPath()))).isEqualTo("rw-------");
        assertThat(Files.readString(file.toPath())).isEqualTo("second");
        assertThat(remaining()).containsExactly("secret");
    }

    /**
     * CFS-7: a temporary file already there (left by a crash, or planted) keeps the mode it was
     * created with when it is opened again; it must not become the secret's file.
     */
    @Test
    void anOwnerOnlyFileIsNotWrittenIntoATemporaryFileOthersCanRead() throws Exception {
        Path dir = Files.createDirectories(root.resolve("job"));
        Path temp = Files.writeString(dir.resolve("secret.tmp"), "left over");
        Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-r--r--"));
        CheckpointLocation file = CheckpointLocation.of(dir.resolve("secret"));

        LocalCheckpointFileSystem.INSTANCE.writeAtomicallyOwnerOnly(file, "secret".getBytes(StandardCharsets.UTF_8));

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.toPath()))).isEqualTo("rw-------");
        assertThat(Files.readString(file.toPath())).isEqualTo("secret");
        assertThat(remaining()).containsExactly("secret");
    }

    @Test
    void loadingADirectoryWithoutMetadataNamesTheProblem() throws Exception {
        Path dir = incomplete(storage, 4);

        assertThatThrownBy(() -> CheckpointStorage.load(CheckpointLocation.of(dir))).isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining("has no _metadata file");
    }

    @Test
    void aSavepointIsRelocatable() throws Exception {
        Path savepoint = complete(storage, 5, CheckpointKind.SAVEPOINT);
        Path moved = root.resolve("elsewhere").resolve("my-savepoint");
        Files.createDirectories(moved.getParent());
        Files.move(savepoint, moved);

        RestoredCheckpoint restored = CheckpointStorage.load(CheckpointLocation.of(moved));

        assertThat(restored.checkpointId()).isEqualTo(5);
        assertThat(restored.stateFor("source", 0, 1).list("splits")).extracting(CheckpointFixtures::string)
                .containsExactly("split@5");
    }

    /** A complete checkpoint whose keyed state, in a backend's own format, lists {@code shared} files. */
    private void completeWithShared(long id, List<String> shared) throws Exception {
        OperatorSnapshot snapshot = new OperatorSnapshot(Map.of(), Map.of(), new TreeMap<>(), Map.of(),
                new NativeKeyedState("rocksdb", 0, 128, CheckpointFixtures.utf8("handle@" + id), shared));
        CheckpointMetadata.TaskStateRef ref = storage.writeTaskState(id, CheckpointKind.CHECKPOINT, "stage1",
                List.of("count"), 0, 1, Map.of("count", snapshot));
        storage.writeMetadata(CheckpointFixtures.metadata(id, CheckpointKind.CHECKPOINT, List.of(ref)));
    }

    private String upload(long checkpointId, String name) throws Exception {
        Path file = root.resolve(name);
        Files.writeString(file, name + " of " + checkpointId);
        return storage.sharedState().upload(checkpointId, file);
    }

    private java.util.Set<String> sharedEntries() throws Exception {
        Path shared = storage.jobDirectory().toPath().resolve("shared");
        try (Stream<Path> dirs = Files.list(shared)) {
            return dirs.map(p -> p.getFileName().toString()).collect(java.util.stream.Collectors.toSet());
        }
    }

    private static String entry(String reference) {
        return reference.split("/")[1];
    }

    @Test
    void theMetadataKeepsWhatACheckpointUploadedAndWhatItRefersToApart() throws Exception {
        String old = upload(1, "old.sst");
        String fresh = upload(2, "fresh.sst");
        OperatorSnapshot snapshot = new OperatorSnapshot(Map.of(), Map.of(), new TreeMap<>(), Map.of(),
                new NativeKeyedState("rocksdb", 0, 128, CheckpointFixtures.utf8("handle@2"), List.of(old, fresh),
                        300, 1_000));
        CheckpointMetadata.TaskStateRef ref = storage.writeTaskState(2, CheckpointKind.CHECKPOINT, "stage1",
                List.of("count"), 0, 1, Map.of("count", snapshot));
        storage.writeMetadata(CheckpointFixtures.metadata(2, CheckpointKind.CHECKPOINT, List.of(ref)));

        CheckpointMetadata read = storage.latestValid().orElseThrow().metadata();

        CheckpointMetadata.TaskStateRef task = read.tasks().get(0);
        assertThat(task.uploadedSharedBytes()).isEqualTo(300);
        assertThat(task.sharedBytes()).isEqualTo(1_000);
        assertThat(read.stateSize()).as("the state file and the shared bytes it uploaded").isEqualTo(task.length() + 300);
        assertThat(read.fullStateSize()).as("the state file and every shared file").isEqualTo(task.length() + 1_000);
    }

    @Test
    void pruneDeletesSharedFilesNoRetainedCheckpointListsButKeepsThoseOfRunningCheckpoints() throws Exception {
        String a = upload(1, "a.sst");
        String b = upload(1, "b.sst");
        completeWithShared(1, List.of(a, b));
        String c = upload(2, "c.sst");
        completeWithShared(2, List.of(b, c));
        String d = upload(3, "d.sst");
        completeWithShared(3, List.of(c, d));
        String running = upload(4, "e.sst"); // checkpoint 4 is still being taken

        storage.prune(1);

        assertThat(remaining()).containsExactly("chk-3", "shared");
        assertThat(sharedEntries()).as("c and d (listed by chk-3) and e (of a running checkpoint)")
                .containsExactlyInAnyOrder(entry(c), entry(d), entry(running));
        RestoredCheckpoint restored = storage.latestValid().orElseThrow();
        assertThat(restored.checkpointId()).isEqualTo(3);
        Path local = root.resolve("downloaded.sst");
        restored.stateFor("count", 0, 1).sharedState().download(d, local);
        assertThat(Files.readString(local)).isEqualTo("d.sst of 3");
        assertThat(restored.stateFor("count", 0, 1).nativeKeyedState()).singleElement()
                .satisfies(state -> assertThat(state.sharedFiles()).containsExactly(c, d));
    }

    @Test
    void pruneKeepsTheBaseOfARunningIncrementalCheckpoint() throws Exception {
        String a = upload(1, "a.sst");
        completeWithShared(1, List.of(a));
        String b = upload(2, "b.sst");
        completeWithShared(2, List.of(b));

        storage.prune(1, java.util.Set.of(1L));

        assertThat(remaining()).containsExactly("chk-1", "chk-2", "shared");
        assertThat(sharedEntries()).containsExactlyInAnyOrder(entry(a), entry(b));
    }

    @Test
    void aCheckpointWhoseSharedFileIsMissingIsSkipped() throws Exception {
        completeWithShared(1, List.of(upload(1, "a.sst")));
        String b = upload(2, "b.sst");
        completeWithShared(2, List.of(b));
        Files.delete(storage.jobDirectory().toPath().resolve(b));

        assertThat(latestValidId()).isEqualTo(1);
    }

    @Test
    void aSharedReferenceOfAnotherShapeIsRefusedNotFollowed() {
        assertThatThrownBy(() -> storage.sharedState().download("shared/../../etc/passwd", root.resolve("x")))
                .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("is not a reference");
    }

    @Test
    void pruneKeepsTheNewestRetainedCheckpointsAndEverySavepoint() throws Exception {
        complete(storage, 1, CheckpointKind.CHECKPOINT);
        complete(storage, 2, CheckpointKind.SAVEPOINT);
        complete(storage, 3, CheckpointKind.CHECKPOINT);
        incomplete(storage, 4); // abandoned: older than the newest complete one
        complete(storage, 5, CheckpointKind.CHECKPOINT);
        complete(storage, 6, CheckpointKind.CHECKPOINT);
        incomplete(storage, 7); // in flight: newer than the newest complete one

        storage.prune(2);

        assertThat(remaining()).containsExactly("chk-5", "chk-6", "chk-7", "savepoint-2");
        assertThat(latestValidId()).isEqualTo(6);
    }

    @Test
    void pruneNeverDeletesSavepointsEvenWhenTheyAreOld() throws Exception {
        complete(storage, 1, CheckpointKind.SAVEPOINT);
        complete(storage, 2, CheckpointKind.SAVEPOINT);
        complete(storage, 3, CheckpointKind.CHECKPOINT);
        complete(storage, 4, CheckpointKind.CHECKPOINT);
        complete(storage, 5, CheckpointKind.SAVEPOINT);

        storage.prune(1);

        assertThat(remaining()).containsExactly("chk-4", "savepoint-1", "savepoint-2", "savepoint-5");
        assertThat(CheckpointStorage.load(storage.jobDirectory().resolve("savepoint-1")).checkpointId()).isEqualTo(1);
    }

    /**
     * "retained" is how many checkpoints a job can fall back to. A checkpoint that fails
     * validation cannot be restored, so it must not use up one of those places. (Checkpoints a
     * storage instance wrote itself are trusted without re-reading, so the corruption is found by
     * the next process, as it would be after a crash.)
     */
    @Test
    void pruneDoesNotCountACorruptCheckpointAsRetained() throws Exception {
        complete(storage, 1, CheckpointKind.CHECKPOINT);
        complete(storage, 2, CheckpointKind.CHECKPOINT);
        Path corrupt = complete(storage, 3, CheckpointKind.CHECKPOINT);
        flipByte(stateFile(corrupt));
        storage = new CheckpointStorage(storage.jobDirectory());
        complete(storage, 4, CheckpointKind.CHECKPOINT);

        storage.prune(2);

        assertThat(remaining()).as("the two newest restorable checkpoints are kept").contains("chk-2", "chk-4");
        Files.delete(storage.jobDirectory().toPath().resolve("chk-4").resolve(CheckpointFixtures.METADATA));
        assertThat(latestValidId()).as("fallback after losing the newest").isEqualTo(2);
    }

    @Test
    void discardDeletesAnAbortedCheckpointButNeverACompletedOne() throws Exception {
        incomplete(storage, 1);
        complete(storage, 2, CheckpointKind.CHECKPOINT);

        storage.discard(1, CheckpointKind.CHECKPOINT);
        storage.discard(2, CheckpointKind.CHECKPOINT);

        assertThat(remaining()).containsExactly("chk-2");
    }

    @Test
    void listReportsCompleteCorruptAndIncompleteCheckpointsOldestFirst() throws Exception {
        complete(storage, 1, CheckpointKind.CHECKPOINT);
        flipByte(stateFile(complete(storage, 2, CheckpointKind.CHECKPOINT)));
        incomplete(storage, 3);
        complete(storage, 4, CheckpointKind.SAVEPOINT);

        var listing = storage.list();

        assertThat(listing).extracting(CheckpointStorage.Listing::id).containsExactly(1L, 2L, 3L, 4L);
        assertThat(listing).extracting(CheckpointStorage.Listing::status)
                .containsExactly("COMPLETE", "CORRUPT", "INCOMPLETE", "COMPLETE");
        assertThat(listing.get(1).problem()).contains("stage0-0.state").contains("fails its checksum");
        assertThat(listing.get(0).metadata().checkpointId()).isEqualTo(1);
    }
}
