package dev.onceflow.runtime.checkpoint;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceflow.runtime.state.OperatorSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints of one job in a directory: {@code chk-<id>/} and {@code savepoint-<id>/}, each holding
 * one state file per task ({@code <task>-<subtask>.state}) and a {@code _metadata} file written
 * last. A checkpoint is complete exactly when its {@code _metadata} exists and validates; state
 * files are written before it, so a crash at any point leaves either a complete checkpoint or
 * garbage that {@link #latestValid} skips and {@link #prune} deletes.
 *
 * <p>The layout uses only create, atomic rename, list and delete, which every Hadoop-compatible
 * file system offers; this implementation uses the local file system.
 */
public final class CheckpointStorage {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointStorage.class);
    private static final Pattern NAME = Pattern.compile("(chk|savepoint)-(\\d+)");
    static final String METADATA = "_metadata";
    private static final ObjectMapper JSON = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final Path jobDirectory;
    /** Directory names known to hold a restorable checkpoint. */
    private final java.util.Set<String> verified = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public CheckpointStorage(Path jobDirectory) {
        this.jobDirectory = jobDirectory.toAbsolutePath().normalize();
    }

    public Path jobDirectory() {
        return jobDirectory;
    }

    /** The directory of a checkpoint or savepoint; created on demand. */
    public Path directoryOf(long checkpointId, CheckpointKind kind) throws IOException {
        Path dir = jobDirectory.resolve((kind == CheckpointKind.SAVEPOINT ? "savepoint-" : "chk-") + checkpointId);
        Files.createDirectories(dir);
        return dir;
    }

    /** Writes one task's state file durably; called on a snapshot thread, not the task thread. */
    public CheckpointMetadata.TaskStateRef writeTaskState(long checkpointId, CheckpointKind kind, String taskName,
            List<String> operatorUids, int subtask, int parallelism, Map<String, OperatorSnapshot> operators)
            throws IOException {
        byte[] payload = TaskStateCodec.encode(operators);
        String file = taskName + "-" + subtask + ".state";
        Path target = directoryOf(checkpointId, kind).resolve(file);
        int checksum = ChecksummedFiles.writeAtomically(target, payload);
        return new CheckpointMetadata.TaskStateRef(taskName, operatorUids, subtask, parallelism, file,
                payload.length, checksum);
    }

    /** Writes {@code _metadata}, which completes the checkpoint. */
    public Path writeMetadata(CheckpointMetadata metadata) throws IOException {
        Path dir = directoryOf(metadata.checkpointId(), metadata.kind());
        ChecksummedFiles.writeAtomically(dir.resolve(METADATA), JSON.writeValueAsBytes(metadata));
        verified.add(dir.getFileName().toString());
        return dir;
    }

    /** The highest id of any checkpoint directory, complete or not; 0 if none. */
    public long highestId() throws IOException {
        return listDirectories().stream().mapToLong(CheckpointStorage::idOf).max().orElse(0);
    }

    /**
     * The newest checkpoint or savepoint that validates completely (metadata and every state file
     * checksum). Invalid ones are logged with the reason and skipped, never restored.
     */
    public Optional<RestoredCheckpoint> latestValid() throws IOException {
        List<Path> dirs = listDirectories();
        dirs.sort(Comparator.comparingLong(CheckpointStorage::idOf).reversed());
        for (Path dir : dirs) {
            if (!Files.exists(dir.resolve(METADATA))) {
                continue; // never completed: not a candidate, and not worth a warning
            }
            try {
                return Optional.of(load(dir));
            } catch (IOException e) {
                LOG.warn("Skipping checkpoint {}: {}", dir.getFileName(), e.getMessage());
            }
        }
        return Optional.empty();
    }

    /** Loads and validates the checkpoint or savepoint in {@code directory}. */
    public static RestoredCheckpoint load(Path directory) throws IOException {
        Path metadataFile = directory.resolve(METADATA);
        if (!Files.exists(metadataFile)) {
            throw new CorruptCheckpointException(directory + " has no " + METADATA
                    + " file: it is not a completed checkpoint or savepoint");
        }
        CheckpointMetadata metadata;
        try {
            metadata = JSON.readValue(ChecksummedFiles.read(metadataFile), CheckpointMetadata.class);
        } catch (CorruptCheckpointException e) {
            throw e;
        } catch (IOException e) {
            throw new CorruptCheckpointException(metadataFile + " cannot be parsed: " + e.getMessage(), e);
        }
        if (metadata.formatVersion() != CheckpointMetadata.FORMAT_VERSION) {
            throw new CorruptCheckpointException(metadataFile + " has unsupported format version "
                    + metadata.formatVersion());
        }
        List<RestoredCheckpoint.TaskState> tasks = new ArrayList<>();
        for (CheckpointMetadata.TaskStateRef ref : metadata.tasks()) {
            Path file = directory.resolve(ref.file()).normalize();
            if (!file.getParent().equals(directory.normalize())) {
                throw new CorruptCheckpointException(metadataFile + " names a state file outside its directory: " + ref.file());
            }
            if (!Files.exists(file)) {
                throw new CorruptCheckpointException("state file " + ref.file() + " is missing");
            }
            byte[] payload = ChecksummedFiles.read(file);
            if (payload.length != ref.length() || ChecksummedFiles.checksum(payload) != ref.checksum()) {
                // A valid file that is not the one the metadata recorded (replaced, or from another attempt).
                throw new CorruptCheckpointException("state file " + ref.file() + " is not the file the metadata recorded ("
                        + payload.length + " bytes, checksum " + Integer.toHexString(ChecksummedFiles.checksum(payload))
                        + "; recorded " + ref.length() + " bytes, checksum " + Integer.toHexString(ref.checksum()) + ")");
            }
            try {
                tasks.add(new RestoredCheckpoint.TaskState(ref, TaskStateCodec.decode(payload)));
            } catch (IOException e) {
                throw new CorruptCheckpointException("state file " + ref.file() + " cannot be decoded: " + e.getMessage(), e);
            }
        }
        return new RestoredCheckpoint(directory, metadata, tasks);
    }

    /** Completed checkpoints and savepoints, oldest first, with their metadata where readable. */
    public List<Listing> list() throws IOException {
        List<Listing> result = new ArrayList<>();
        List<Path> dirs = listDirectories();
        dirs.sort(Comparator.comparingLong(CheckpointStorage::idOf));
        for (Path dir : dirs) {
            result.add(Listing.of(dir));
        }
        return result;
    }

    /**
     * Deletes completed checkpoints beyond the newest {@code retained}, and abandoned incomplete
     * ones older than the newest complete one. Savepoints are the user's and are never deleted.
     */
    public void prune(int retained) throws IOException {
        List<Path> dirs = listDirectories();
        dirs.sort(Comparator.comparingLong(CheckpointStorage::idOf).reversed());
        int kept = 0;
        long newestComplete = -1;
        for (Path dir : dirs) {
            boolean savepoint = dir.getFileName().toString().startsWith("savepoint-");
            boolean complete = restorable(dir);
            if (complete && newestComplete < 0) {
                newestComplete = idOf(dir);
            }
            if (savepoint) {
                continue;
            }
            if (complete && kept < retained) {
                kept++;
            } else if (complete || (newestComplete >= 0 && idOf(dir) < newestComplete)) {
                deleteRecursively(dir);
            }
        }
    }

    /**
     * Whether a checkpoint can be restored. Each directory is validated in full once (what this
     * process wrote itself is trusted), so pruning after every checkpoint does not re-read state.
     */
    private boolean restorable(Path dir) {
        if (!Files.exists(dir.resolve(METADATA))) {
            return false;
        }
        if (verified.contains(dir.getFileName().toString())) {
            return true;
        }
        try {
            load(dir);
            verified.add(dir.getFileName().toString());
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Deletes the directory of an aborted checkpoint. */
    public void discard(long checkpointId, CheckpointKind kind) {
        Path dir = jobDirectory.resolve((kind == CheckpointKind.SAVEPOINT ? "savepoint-" : "chk-") + checkpointId);
        if (!Files.exists(dir.resolve(METADATA))) {
            deleteRecursively(dir);
        }
    }

    private List<Path> listDirectories() throws IOException {
        if (!Files.isDirectory(jobDirectory)) {
            return new ArrayList<>();
        }
        try (Stream<Path> entries = Files.list(jobDirectory)) {
            return entries.filter(Files::isDirectory)
                    .filter(p -> NAME.matcher(p.getFileName().toString()).matches())
                    .collect(java.util.stream.Collectors.toCollection(ArrayList::new));
        }
    }

    static long idOf(Path dir) {
        Matcher m = NAME.matcher(dir.getFileName().toString());
        return m.matches() ? Long.parseLong(m.group(2)) : -1;
    }

    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("Could not delete {}: {}", dir, e.getMessage());
        }
    }

    /** One line of {@code onceflow checkpoints}. */
    public record Listing(Path directory, long id, String status, CheckpointMetadata metadata, String problem) {

        static Listing of(Path dir) {
            long id = idOf(dir);
            if (!Files.exists(dir.resolve(METADATA))) {
                return new Listing(dir, id, "INCOMPLETE", null, null);
            }
            try {
                RestoredCheckpoint loaded = load(dir);
                return new Listing(dir, id, "COMPLETE", loaded.metadata(), null);
            } catch (IOException e) {
                return new Listing(dir, id, "CORRUPT", null, e.getMessage());
            }
        }
    }
}
