package dev.onceflow.runtime.checkpoint;

import dev.onceflow.runtime.state.OperatorSnapshot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Writes checkpoints the way the runtime does (state files, then {@code _metadata}) and damages them. */
public final class CheckpointFixtures {

    public static final String METADATA = CheckpointStorage.METADATA;

    private CheckpointFixtures() {
    }

    /** A complete checkpoint of one source task at parallelism 1 whose split list holds {@code "split@<id>"}. */
    public static Path complete(CheckpointStorage storage, long id, CheckpointKind kind) throws IOException {
        OperatorSnapshot snapshot = new OperatorSnapshot(Map.of("splits", List.of(utf8("split@" + id))), Map.of(),
                new TreeMap<>());
        CheckpointMetadata.TaskStateRef ref = storage.writeTaskState(id, kind, "stage0", List.of("source"), 0, 1,
                Map.of("source", snapshot));
        return storage.writeMetadata(metadata(id, kind, List.of(ref))).toPath();
    }

    /** A checkpoint whose state file was written but whose {@code _metadata} never was. */
    public static Path incomplete(CheckpointStorage storage, long id) throws IOException {
        OperatorSnapshot snapshot = new OperatorSnapshot(Map.of("splits", List.of(utf8("split@" + id))), Map.of(),
                new TreeMap<>());
        storage.writeTaskState(id, CheckpointKind.CHECKPOINT, "stage0", List.of("source"), 0, 1,
                Map.of("source", snapshot));
        return storage.directoryOf(id, CheckpointKind.CHECKPOINT).toPath();
    }

    public static CheckpointMetadata metadata(long id, CheckpointKind kind, List<CheckpointMetadata.TaskStateRef> tasks) {
        return new CheckpointMetadata(CheckpointMetadata.FORMAT_VERSION, id, kind, "job", "EXACTLY_ONCE", 128,
                1_000L * id, 1_000L * id + 10, new ArrayList<>(tasks), List.of());
    }

    /** Flips one bit in the middle of {@code file}. */
    public static void flipByte(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 2] ^= 0x10;
        Files.write(file, bytes);
    }

    /** Cuts {@code file} to half its length, as a torn write would. */
    public static void cut(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length / 2));
    }

    /** The only state file of a checkpoint written by {@link #complete}. */
    public static Path stateFile(Path checkpoint) {
        return checkpoint.resolve("stage0-0.state");
    }

    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    public static String string(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
