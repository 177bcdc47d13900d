package dev.onceflow.runtime.checkpoint;

import java.util.List;

/**
 * The {@code _metadata} file of a completed checkpoint or savepoint (JSON inside a checksummed
 * envelope). It names every state file relative to its own directory, so a savepoint directory can
 * be moved or copied and still restores.
 */
public record CheckpointMetadata(
        int formatVersion,
        long checkpointId,
        CheckpointKind kind,
        String jobName,
        String mode,
        int maxParallelism,
        long triggerTimestamp,
        long completionTimestamp,
        List<TaskStateRef> tasks,
        List<EnumeratorStateRef> enumerators) {

    public static final int FORMAT_VERSION = 1;

    /**
     * The bytes this checkpoint wrote: its state files and the shared files it uploaded itself.
     * For an incremental checkpoint that is what changed since its base; otherwise all its state.
     */
    public long stateSize() {
        return tasks.stream().mapToLong(t -> t.length() + t.uploadedSharedBytes()).sum();
    }

    /**
     * The bytes a restore of this checkpoint reads: its state files and every shared file they
     * refer to, whichever checkpoint uploaded it.
     */
    public long fullStateSize() {
        return tasks.stream().mapToLong(t -> t.length() + t.sharedBytes()).sum();
    }

    /**
     * One subtask's state file.
     *
     * @param operatorUids the operators of the task's chain, whose snapshots the file holds
     * @param length the size of the state file's payload
     * @param sharedFiles files of the job's {@code shared/} directory the state file refers to
     *     (incremental checkpoints); empty in savepoints and in metadata written before it existed
     * @param uploadedSharedBytes the size of those of {@code sharedFiles} this checkpoint uploaded
     *     (0 in metadata written before it existed, as is {@code sharedBytes})
     * @param sharedBytes the size of all {@code sharedFiles}
     */
    public record TaskStateRef(String taskName, List<String> operatorUids, int subtask, int parallelism, String file,
            long length, int checksum, List<String> sharedFiles, long uploadedSharedBytes, long sharedBytes) {

        public TaskStateRef {
            sharedFiles = sharedFiles == null ? List.of() : List.copyOf(sharedFiles);
        }
    }

    /** A source's enumerator state, serialized with its serializer at {@code version}. */
    public record EnumeratorStateRef(String sourceUid, int version, byte[] state) {
    }
}
