package dev.onceflow.checkpoint.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.runtime.checkpoint.CheckpointFileSystem;
import dev.onceflow.runtime.checkpoint.CheckpointKind;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.checkpoint.CheckpointMetadata;
import dev.onceflow.runtime.checkpoint.CheckpointStorage;
import dev.onceflow.runtime.checkpoint.CorruptCheckpointException;
import dev.onceflow.runtime.checkpoint.RestoredCheckpoint;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.testing.hdfs.HdfsExtension;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.TestInfo;

/**
 * The checkpoint layout on a real HDFS: only a complete, intact checkpoint is ever restored, a
 * damaged one is refused with the reason, and pruning keeps the user's savepoints.
 */
class HdfsCheckpointStorageTest {

    @RegisterExtension
    static final HdfsExtension HDFS = new HdfsExtension(1);

    CheckpointStorage storage;
    CheckpointLocation jobDirectory;

    @BeforeEach
    void setUp(TestInfo test) throws IOException {
        // A directory per test on the shared cluster.
        jobDirectory = CheckpointLocation.of(HDFS.cluster().uri() + "/checkpoints/" + test.getTestMethod().orElseThrow().getName());
        storage = new CheckpointStorage(jobDirectory);
    }

    /** A complete checkpoint (state file, then {@code _metadata}) whose split list holds {@code "split@<id>"}. */
    private CheckpointLocation complete(long id, CheckpointKind kind) throws IOException {
        return storage.writeMetadata(metadata(id, kind, List.of(writeState(id, kind))));
    }

    private CheckpointMetadata.TaskStateRef writeState(long id, CheckpointKind kind) throws IOException {
        OperatorSnapshot snapshot = new OperatorSnapshot(
                Map.of("splits", List.of(("split@" + id).getBytes(StandardCharsets.UTF_8))), Map.of(), new TreeMap<>());
        return storage.writeTaskState(id, kind, "stage0", List.of("source"), 0, 1, Map.of("source", snapshot));
    }

    private static CheckpointMetadata metadata(long id, CheckpointKind kind, List<CheckpointMetadata.TaskStateRef> tasks) {
        return new CheckpointMetadata(CheckpointMetadata.FORMAT_VERSION, id, kind, "job", "EXACTLY_ONCE", 128,
                1_000L * id, 1_000L * id + 10, new ArrayList<>(tasks), List.of());
    }

    private static org.apache.hadoop.fs.Path hadoopPath(CheckpointLocation location) {
        return new org.apache.hadoop.fs.Path(location.uri());
    }

    private static byte[] readRaw(CheckpointLocation file) throws IOException {
        try (InputStream in = HDFS.cluster().fileSystem().open(hadoopPath(file))) {
            return in.readAllBytes();
        }
    }

    private static void writeRaw(CheckpointLocation file, byte[] bytes) throws IOException {
        try (OutputStream out = HDFS.cluster().fileSystem().create(hadoopPath(file), true)) {
            out.write(bytes);
        }
    }

    private static String split(RestoredCheckpoint restored) {
        return new String(restored.stateFor("source", 0, 1).list("splits").get(0), StandardCharsets.UTF_8);
    }

    private String[] remaining() throws IOException {
        return Arrays.stream(HDFS.cluster().fileSystem().listStatus(hadoopPath(jobDirectory)))
                .map(s -> s.getPath().getName()).sorted().toArray(String[]::new);
    }

    @Test
    void aSharedFileIsStreamedBackFromHdfsAndACorruptOneIsRefused(@TempDir Path local) throws Exception {
        // Several times the 64 KiB copy buffer, with a length that is not a multiple of it.
        byte[] content = new byte[5 * 65_536 + 123];
        new java.util.SplittableRandom(7).nextBytes(content);
        Path file = local.resolve("000042.sst");
        java.nio.file.Files.write(file, content);
        String reference = storage.sharedState().upload(3, file);

        Path downloaded = local.resolve("downloaded.sst");
        storage.sharedState().download(reference, downloaded);

        assertThat(java.nio.file.Files.readAllBytes(downloaded)).isEqualTo(content);
        CheckpointLocation stored = jobDirectory;
        for (String segment : reference.split("/")) {
            stored = stored.resolve(segment);
        }
        byte[] raw = readRaw(stored);
        raw[raw.length / 2] ^= 1;
        writeRaw(stored, raw);
        assertThatThrownBy(() -> storage.sharedState().download(reference, local.resolve("corrupt.sst")))
                .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("fails its checksum");
        assertThat(local.resolve("corrupt.sst")).as("no partial or corrupt copy is left").doesNotExist();
        // CFS-2 for streams too.
        assertThatThrownBy(() -> CheckpointFileSystem.of(jobDirectory).open(jobDirectory.resolve("missing.sst")))
                .isInstanceOf(NoSuchFileException.class);
    }

    @Test
    void aCheckpointWrittenToHdfsLoadsWithItsState() throws Exception {
        CheckpointLocation written = complete(1, CheckpointKind.CHECKPOINT);

        RestoredCheckpoint restored = storage.latestValid().orElseThrow();

        assertThat(written.toString()).isEqualTo(HDFS.cluster().uri() + "/checkpoints/aCheckpointWrittenToHdfsLoadsWithItsState/chk-1");
        assertThat(restored.directory()).isEqualTo(written);
        assertThat(restored.checkpointId()).isEqualTo(1);
        assertThat(split(restored)).isEqualTo("split@1");
        assertThat(HDFS.cluster().fileSystem().exists(hadoopPath(written.resolve("_metadata")))).isTrue();
        assertThat(Arrays.stream(HDFS.cluster().fileSystem().listStatus(hadoopPath(written))).map(s -> s.getPath().getName()))
                .as("no temporary file left behind").containsExactlyInAnyOrder("_metadata", "stage0-0.state");
    }

    @Test
    void theNewestOfSeveralCheckpointsIsRestoredByANewProcess() throws Exception {
        complete(1, CheckpointKind.CHECKPOINT);
        complete(2, CheckpointKind.CHECKPOINT);
        complete(3, CheckpointKind.CHECKPOINT);

        CheckpointStorage afterRestart = new CheckpointStorage(jobDirectory);

        assertThat(afterRestart.highestId()).isEqualTo(3);
        assertThat(split(afterRestart.latestValid().orElseThrow())).isEqualTo("split@3");
    }

    @Test
    void anEmptyOrMissingDirectoryHasNothingToRestore() throws Exception {
        assertThat(storage.exists()).isFalse();
        assertThat(storage.latestValid()).isEmpty();
        assertThat(storage.highestId()).isZero();
        assertThat(storage.list()).isEmpty();
    }

    /** CFS-1 on HDFS, where a plain rename onto an existing file fails instead of replacing it. */
    @Test
    void writingAFileAgainReplacesItWhole() throws Exception {
        CheckpointFileSystem fs = CheckpointFileSystem.of(jobDirectory);
        CheckpointLocation file = jobDirectory.resolve("file");

        fs.writeAtomically(file, "first, longer content".getBytes(StandardCharsets.UTF_8));
        fs.writeAtomically(file, "second".getBytes(StandardCharsets.UTF_8));

        assertThat(new String(fs.read(file), StandardCharsets.UTF_8)).isEqualTo("second");
        assertThat(remaining()).containsExactly("file");
    }

    /** CFS-7 on HDFS: the file has mode 0600 and is replaced whole. */
    @Test
    void anOwnerOnlyFileIsReadableByItsOwnerOnly() throws Exception {
        CheckpointFileSystem fs = CheckpointFileSystem.of(jobDirectory);
        CheckpointLocation file = jobDirectory.resolve("secret");

        fs.writeAtomicallyOwnerOnly(file, "first, longer".getBytes(StandardCharsets.UTF_8));
        fs.writeAtomicallyOwnerOnly(file, "second".getBytes(StandardCharsets.UTF_8));

        assertThat(HDFS.cluster().fileSystem().getFileStatus(hadoopPath(file)).getPermission())
                .hasToString("rw-------");
        assertThat(new String(fs.read(file), StandardCharsets.UTF_8)).isEqualTo("second");
        assertThat(remaining()).containsExactly("secret");
    }

    /** CFS-1 needs an atomic rename, which object stores do not have. */
    @Test
    void anObjectStoreIsRefusedEvenThoughHadoopCouldReachIt() {
        assertThatThrownBy(() -> new CheckpointStorage(CheckpointLocation.of("s3a://bucket/checkpoints")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("no checkpoint storage for 's3a://bucket/checkpoints': nothing on the class path serves 's3a:'");
    }

    @Test
    void theFileOperationsKeepTheirContractOnMissingLocations() throws Exception {
        CheckpointFileSystem fs = CheckpointFileSystem.of(jobDirectory);
        CheckpointLocation missing = jobDirectory.resolve("missing");

        assertThatThrownBy(() -> fs.read(missing)).isInstanceOf(NoSuchFileException.class)
                .hasMessage(missing.toString());
        assertThat(fs.listDirectories(missing)).isEmpty();
        assertThat(fs.exists(missing)).isFalse();
        fs.deleteRecursively(missing);
        fs.mkdirs(missing.resolve("a"));
        fs.mkdirs(missing.resolve("a"));
        assertThat(fs.listDirectories(missing)).containsExactly(missing.resolve("a"));
    }

    /** Checkpoints 1 and 2, then the state file of 2 replaced by {@code damage} of itself; returns that file. */
    private CheckpointLocation twoCheckpointsTheNewestDamaged(UnaryOperator<byte[]> damage) throws IOException {
        complete(1, CheckpointKind.CHECKPOINT);
        CheckpointLocation state = complete(2, CheckpointKind.CHECKPOINT).resolve("stage0-0.state");
        writeRaw(state, damage.apply(readRaw(state)));
        return state;
    }

    @Test
    void aStateFileWithAFlippedBitIsRefusedAndTheOlderCheckpointRestored() throws Exception {
        CheckpointLocation state = twoCheckpointsTheNewestDamaged(bytes -> {
            bytes[bytes.length / 2] ^= 0x10;
            return bytes;
        });
        CheckpointLocation newest = state.parent();

        assertThatThrownBy(() -> CheckpointStorage.load(newest)).isInstanceOf(CorruptCheckpointException.class)
                .hasMessageStartingWith(state + " fails its checksum (stored ");
        assertThat(new CheckpointStorage(jobDirectory).latestValid().orElseThrow().checkpointId()).isEqualTo(1);
    }

    @Test
    void aTruncatedStateFileIsRefusedAndTheOlderCheckpointRestored() throws Exception {
        CheckpointLocation state = twoCheckpointsTheNewestDamaged(bytes -> Arrays.copyOf(bytes, bytes.length / 2));
        CheckpointLocation newest = state.parent();

        assertThatThrownBy(() -> CheckpointStorage.load(newest)).isInstanceOf(CorruptCheckpointException.class)
                .hasMessageStartingWith(state + " is truncated");
        assertThat(new CheckpointStorage(jobDirectory).latestValid().orElseThrow().checkpointId()).isEqualTo(1);
        assertThat(new CheckpointStorage(jobDirectory).list()).extracting(CheckpointStorage.Listing::status)
                .containsExactly("COMPLETE", "CORRUPT");
    }

    @Test
    void aCheckpointWithoutMetadataIsSkippedButItsIdNeverReused() throws Exception {
        complete(1, CheckpointKind.CHECKPOINT);
        writeState(2, CheckpointKind.CHECKPOINT);

        CheckpointStorage afterRestart = new CheckpointStorage(jobDirectory);

        assertThat(afterRestart.latestValid().orElseThrow().checkpointId()).isEqualTo(1);
        assertThat(afterRestart.highestId()).isEqualTo(2);
        assertThatThrownBy(() -> CheckpointStorage.load(jobDirectory.resolve("chk-2")))
                .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("has no _metadata file");
    }

    @Test
    void pruneKeepsTheNewestCheckpointsAndEverySavepoint() throws Exception {
        complete(1, CheckpointKind.CHECKPOINT);
        complete(2, CheckpointKind.SAVEPOINT);
        writeState(3, CheckpointKind.CHECKPOINT);
        complete(4, CheckpointKind.CHECKPOINT);
        complete(5, CheckpointKind.CHECKPOINT);

        storage.prune(1);

        assertThat(remaining()).containsExactly("chk-5", "savepoint-2");
        assertThat(CheckpointStorage.load(jobDirectory.resolve("savepoint-2")).metadata().kind())
                .isEqualTo(CheckpointKind.SAVEPOINT);
    }

    @Test
    void aSavepointOnHdfsIsRelocatable() throws Exception {
        CheckpointLocation savepoint = complete(7, CheckpointKind.SAVEPOINT);
        CheckpointLocation moved = CheckpointLocation.of(HDFS.cluster().uri() + "/elsewhere/my-savepoint");
        DistributedFileSystem fs = HDFS.cluster().fileSystem();
        fs.mkdirs(hadoopPath(moved.parent()));
        assertThat(fs.rename(hadoopPath(savepoint), hadoopPath(moved))).isTrue();

        RestoredCheckpoint restored = CheckpointStorage.load(moved);

        assertThat(restored.checkpointId()).isEqualTo(7);
        assertThat(restored.metadata().kind()).isEqualTo(CheckpointKind.SAVEPOINT);
        assertThat(split(restored)).isEqualTo("split@7");
    }

    @Test
    void discardDeletesAnAbortedCheckpointButNeverACompleteOne() throws Exception {
        complete(1, CheckpointKind.CHECKPOINT);
        writeState(2, CheckpointKind.CHECKPOINT);

        storage.discard(2, CheckpointKind.CHECKPOINT);
        storage.discard(1, CheckpointKind.CHECKPOINT);

        assertThat(remaining()).containsExactly("chk-1");
        FileStatus[] files = HDFS.cluster().fileSystem().listStatus(hadoopPath(jobDirectory.resolve("chk-1")));
        assertThat(files).hasSize(2);
    }
}
