package dev.onceflow.runtime.checkpoint;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.SharedStateStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints of one job in a directory: {@code chk-<id>/} and {@code savepoint-<id>/}, each holding
 * one state file per task ({@code <task>-<subtask>.state}) and a {@code _metadata} file written
 * last. A checkpoint is complete exactly when its {@code _metadata} exists and validates; state
 * files are written before it, so a crash at any point leaves either a complete checkpoint or
 * garbage that {@link #latestValid} skips and {@link #prune} deletes.
 *
 * <p>The layout uses only the operations of {@link CheckpointFileSystem} (atomic replace of a
 * file, read, list, mkdirs, delete), so the directory may be on local disk or on HDFS.
 */
public final class CheckpointStorage {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointStorage.class);
    private static final Pattern NAME = Pattern.compile("(chk|savepoint)-(\\d+)");
    static final String METADATA = "_metadata";
    private static final ObjectMapper JSON = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final CheckpointFileSystem fs;
    private final CheckpointLocation jobDirectory;
    /** Directory names known to hold a restorable checkpoint. */
    private final java.util.Set<String> verified = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * @throws IllegalArgumentException if no {@link CheckpointFileSystem} on the class path serves
     *     the location's scheme
     */
    public CheckpointStorage(CheckpointLocation jobDirectory) throws IOException {
        this.fs = CheckpointFileSystem.of(jobDirectory);
        this.jobDirectory = jobDirectory;
    }

    public CheckpointLocation jobDirectory() {
        return jobDirectory;
    }

    /** The directory of a checkpoint or savepoint; created on demand. */
    public CheckpointLocation directoryOf(long checkpointId, CheckpointKind kind) throws IOException {
        CheckpointLocation dir = nameOf(checkpointId, kind);
        fs.mkdirs(dir);
        return dir;
    }

    private CheckpointLocation nameOf(long checkpointId, CheckpointKind kind) {
        return jobDirectory.resolve((kind == CheckpointKind.SAVEPOINT ? "savepoint-" : "chk-") + checkpointId);
    }

    /**
     * Writes one task's state file durably; called on a snapshot thread, not the task thread. Not
     * atomically (CFS-6): only {@link #writeMetadata}, an atomic write into the same directory, makes
     * the file reachable, and it syncs that directory, so each task file costs one sync instead of
     * a sync, a rename and a directory sync.
     */
    public CheckpointMetadata.TaskStateRef writeTaskState(long checkpointId, CheckpointKind kind, String taskName,
            List<String> operatorUids, int subtask, int parallelism, Map<String, OperatorSnapshot> operators)
            throws IOException {
        String file = taskName + "-" + subtask + ".state";
        long length;
        int checksum;
        try {
            length = TaskStateCodec.encodedLength(operators);
            CheckpointLocation target = directoryOf(checkpointId, kind).resolve(file);
            checksum = ChecksummedFiles.writeDurably(fs, target, length, out -> TaskStateCodec.encode(operators, out));
        } finally {
            for (OperatorSnapshot snapshot : operators.values()) {
                if (snapshot.keyedState() instanceof StoredKeyGroups spilled) {
                    spilled.close(); // a backend's local snapshot file, read once
                }
            }
        }
        List<String> shared = new ArrayList<>();
        long uploadedBytes = 0;
        long sharedBytes = 0;
        for (OperatorSnapshot snapshot : operators.values()) {
            if (snapshot.nativeKeyedState() != null) {
                shared.addAll(snapshot.nativeKeyedState().sharedFiles());
                uploadedBytes += snapshot.nativeKeyedState().uploadedBytes();
                sharedBytes += snapshot.nativeKeyedState().sharedBytes();
            }
        }
        return new CheckpointMetadata.TaskStateRef(taskName, operatorUids, subtask, parallelism, file,
                length, checksum, shared, uploadedBytes, sharedBytes);
    }

    /** Where incremental snapshots of this job put the files checkpoints share. */
    public SharedStateStore sharedState() {
        return new SharedStateFiles(fs, jobDirectory);
    }

    /** A reference to a shared state file, checked for its shape (it was read from a state file). */
    static String checkSharedReference(String reference) throws IOException {
        SharedStateFiles.check(reference);
        return reference;
    }

    /** Writes {@code _metadata}, which completes the checkpoint. */
    public CheckpointLocation writeMetadata(CheckpointMetadata metadata) throws IOException {
        CheckpointLocation dir = directoryOf(metadata.checkpointId(), metadata.kind());
        ChecksummedFiles.writeAtomically(fs, dir.resolve(METADATA), JSON.writeValueAsBytes(metadata));
        verified.add(dir.name());
        return dir;
    }

    /** The highest id of any checkpoint directory, complete or not; 0 if none. */
    public long highestId() throws IOException {
        return listDirectories().stream().mapToLong(CheckpointStorage::idOf).max().orElse(0);
    }

    /**
     * The checkpoints and savepoints whose completion was recorded (their {@code _metadata} exists),
     * newest first, whether they validate or not: once {@code _metadata} is written, sinks are told
     * to commit, so each of these may have committed output (EO-5). Directories without it never
     * completed, committed nothing, and are left out.
     */
    public List<CheckpointLocation> completedNewestFirst() throws IOException {
        List<CheckpointLocation> dirs = listDirectories();
        dirs.sort(Comparator.comparingLong(CheckpointStorage::idOf).reversed());
        List<CheckpointLocation> completed = new ArrayList<>();
        for (CheckpointLocation dir : dirs) {
            if (fs.exists(dir.resolve(METADATA))) {
                completed.add(dir);
            }
        }
        return completed;
    }

    /**
     * The newest checkpoint or savepoint that validates completely (metadata and every state file
     * checksum). Invalid ones are logged with the reason and skipped, never restored.
     *
     * <p>Not what a job restores: skipping a corrupt completed checkpoint goes back past output
     * that may be committed. {@code --resume latest} refuses that instead (EO-5,
     * {@code execution.RestorePoints}).
     */
    public Optional<RestoredCheckpoint> latestValid() throws IOException {
        List<CheckpointLocation> dirs = listDirectories();
        dirs.sort(Comparator.comparingLong(CheckpointStorage::idOf).reversed());
        for (CheckpointLocation dir : dirs) {
            if (!fs.exists(dir.resolve(METADATA))) {
                continue; // never completed: not a candidate, and not worth a warning
            }
            try {
                return Optional.of(load(fs, dir));
            } catch (IOException e) {
                LOG.warn("Skipping checkpoint {}: {}", dir.name(), e.getMessage());
            }
        }
        return Optional.empty();
    }

    /**
     * Loads and validates the checkpoint or savepoint in {@code directory}, which may be anywhere
     * a {@link CheckpointFileSystem} serves (a savepoint is relocatable).
     */
    public static RestoredCheckpoint load(CheckpointLocation directory) throws IOException {
        return load(CheckpointFileSystem.of(directory), directory);
    }

    private static RestoredCheckpoint load(CheckpointFileSystem fs, CheckpointLocation directory) throws IOException {
        CheckpointLocation metadataFile = directory.resolve(METADATA);
        if (!fs.exists(metadataFile)) {
            throw new CorruptCheckpointException(directory + " has no " + METADATA
                    + " file: it is not a completed checkpoint or savepoint");
        }
        CheckpointMetadata metadata;
        try {
            metadata = JSON.readValue(ChecksummedFiles.read(fs, metadataFile), CheckpointMetadata.class);
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
            CheckpointLocation file;
            try {
                file = directory.resolve(ref.file());
            } catch (IllegalArgumentException e) {
                throw new CorruptCheckpointException(metadataFile + " names a state file outside its directory: " + ref.file());
            }
            if (!fs.exists(file)) {
                throw new CorruptCheckpointException("state file " + ref.file() + " is missing");
            }
            // Streamed and verified whole; key group blobs stay in the file until a backend reads them.
            ChecksummedFiles.Parsed<Map<String, OperatorSnapshot>> parsed;
            try {
                parsed = ChecksummedFiles.readStreaming(fs, file, payload -> TaskStateCodec.decode(payload,
                        (offset, length, crc) -> StoredKeyGroups.inFile(fs, file, offset, length, crc)));
            } catch (CorruptCheckpointException e) {
                throw e;
            } catch (IOException e) {
                throw new CorruptCheckpointException("state file " + ref.file() + " cannot be decoded: " + e.getMessage(), e);
            }
            if (parsed.length() != ref.length() || parsed.checksum() != ref.checksum()) {
                // A valid file that is not the one the metadata recorded (replaced, or from another attempt).
                throw new CorruptCheckpointException("state file " + ref.file() + " is not the file the metadata recorded ("
                        + parsed.length() + " bytes, checksum " + Integer.toHexString(parsed.checksum())
                        + "; recorded " + ref.length() + " bytes, checksum " + Integer.toHexString(ref.checksum()) + ")");
            }
            for (String shared : ref.sharedFiles()) {
                // Shared files live in the job directory, next to the checkpoint's own.
                if (!fs.exists(new SharedStateFiles(fs, directory.parent()).locate(shared))) {
                    throw new CorruptCheckpointException("shared state file " + shared + " of " + ref.file() + " is missing");
                }
            }
            tasks.add(new RestoredCheckpoint.TaskState(ref, parsed.value()));
        }
        return new RestoredCheckpoint(directory, metadata, tasks, new SharedStateFiles(fs, directory.parent()));
    }

    /** Completed checkpoints and savepoints, oldest first, with their metadata where readable. */
    public List<Listing> list() throws IOException {
        List<Listing> result = new ArrayList<>();
        List<CheckpointLocation> dirs = listDirectories();
        dirs.sort(Comparator.comparingLong(CheckpointStorage::idOf));
        for (CheckpointLocation dir : dirs) {
            result.add(Listing.of(fs, dir));
        }
        return result;
    }

    /**
     * Deletes completed checkpoints beyond the newest {@code retained}, and abandoned incomplete
     * ones older than the newest complete one. Savepoints are the user's and are never deleted.
     */
    public void prune(int retained) throws IOException {
        prune(retained, java.util.Set.of());
    }

    /**
     * Like {@link #prune(int)}, but keeps the completed checkpoints in {@code inUse} (the bases of
     * incremental snapshots still running), then deletes the shared files that no checkpoint left
     * lists, except those uploaded after the newest complete checkpoint: they may belong to one
     * still running.
     */
    public void prune(int retained, java.util.Set<Long> inUse) throws IOException {
        List<CheckpointLocation> dirs = listDirectories();
        dirs.sort(Comparator.comparingLong(CheckpointStorage::idOf).reversed());
        int kept = 0;
        long newestComplete = -1;
        for (CheckpointLocation dir : dirs) {
            boolean savepoint = dir.name().startsWith("savepoint-");
            boolean complete = restorable(dir);
            if (complete && newestComplete < 0) {
                newestComplete = idOf(dir);
            }
            if (savepoint) {
                continue;
            }
            if (complete && kept < retained) {
                kept++;
            } else if (complete && inUse.contains(idOf(dir))) {
                LOG.debug("Keeping {} a while longer: a running incremental checkpoint refers to its files", dir.name());
            } else if (complete || (newestComplete >= 0 && idOf(dir) < newestComplete)) {
                deleteRecursively(dir);
            }
        }
        pruneSharedFiles(newestComplete);
    }

    private void pruneSharedFiles(long newestComplete) throws IOException {
        CheckpointLocation sharedDirectory = jobDirectory.resolve(SharedStateFiles.DIRECTORY);
        List<CheckpointLocation> entries = fs.listDirectories(sharedDirectory);
        if (entries.isEmpty() || newestComplete < 0) {
            return;
        }
        java.util.Set<String> referenced = new java.util.HashSet<>();
        for (CheckpointLocation dir : listDirectories()) {
            if (!fs.exists(dir.resolve(METADATA))) {
                continue;
            }
            CheckpointMetadata metadata;
            try {
                metadata = JSON.readValue(ChecksummedFiles.read(fs, dir.resolve(METADATA)), CheckpointMetadata.class);
            } catch (IOException e) {
                // Unreadable metadata cannot be restored either; its files go with it at the next prune.
                LOG.warn("Could not read {} while pruning shared state: {}", dir.resolve(METADATA), e.getMessage());
                continue;
            }
            for (CheckpointMetadata.TaskStateRef ref : metadata.tasks()) {
                for (String shared : ref.sharedFiles()) {
                    referenced.add(SharedStateFiles.entryOf(shared));
                }
            }
        }
        for (CheckpointLocation entry : entries) {
            long uploader = SharedStateFiles.uploaderOf(entry.name());
            if (uploader >= 0 && uploader <= newestComplete && !referenced.contains(entry.name())) {
                deleteRecursively(entry);
            }
        }
    }

    /**
     * Whether a checkpoint can be restored. Each directory is validated in full once (what this
     * process wrote itself is trusted), so pruning after every checkpoint does not re-read state.
     */
    private boolean restorable(CheckpointLocation dir) throws IOException {
        if (!fs.exists(dir.resolve(METADATA))) {
            return false;
        }
        if (verified.contains(dir.name())) {
            return true;
        }
        try {
            load(fs, dir);
            verified.add(dir.name());
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Deletes the directory of an aborted checkpoint. */
    public void discard(long checkpointId, CheckpointKind kind) {
        CheckpointLocation dir = nameOf(checkpointId, kind);
        try {
            if (!fs.exists(dir.resolve(METADATA))) {
                deleteRecursively(dir);
            }
        } catch (IOException e) {
            LOG.warn("Could not discard {}: {}", dir, e.getMessage());
        }
    }

    /** Whether the job directory exists at all. */
    public boolean exists() throws IOException {
        return fs.exists(jobDirectory);
    }

    private List<CheckpointLocation> listDirectories() throws IOException {
        List<CheckpointLocation> dirs = fs.listDirectories(jobDirectory);
        dirs.removeIf(dir -> !NAME.matcher(dir.name()).matches());
        return dirs;
    }

    /** The id in the name of a checkpoint or savepoint directory ({@code chk-7}: 7); -1 for another name. */
    public static long idOf(CheckpointLocation dir) {
        Matcher m = NAME.matcher(dir.name());
        return m.matches() ? Long.parseLong(m.group(2)) : -1;
    }

    private void deleteRecursively(CheckpointLocation dir) {
        try {
            fs.deleteRecursively(dir);
        } catch (IOException e) {
            LOG.warn("Could not delete {}: {}", dir, e.getMessage());
        }
    }

    /** One line of {@code onceflow checkpoints}. */
    public record Listing(CheckpointLocation directory, long id, String status, CheckpointMetadata metadata,
            String problem) {

        static Listing of(CheckpointFileSystem fs, CheckpointLocation dir) throws IOException {
            long id = idOf(dir);
            if (!fs.exists(dir.resolve(METADATA))) {
                return new Listing(dir, id, "INCOMPLETE", null, null);
            }
            try {
                RestoredCheckpoint loaded = load(fs, dir);
                return new Listing(dir, id, "COMPLETE", loaded.metadata(), null);
            } catch (IOException e) {
                return new Listing(dir, id, "CORRUPT", null, e.getMessage());
            }
        }
    }
}
