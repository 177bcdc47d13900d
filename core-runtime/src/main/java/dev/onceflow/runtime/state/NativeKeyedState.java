package dev.onceflow.runtime.state;

import java.util.List;

/**
 * Keyed state of one subtask in a backend's own format, for checkpoints that upload only what
 * changed (the RocksDB backend's incremental checkpoints). Only the backend that wrote it can
 * restore it; savepoints never hold it.
 *
 * @param backend the {@link StateBackend#name()} that wrote it
 * @param firstGroup first key group (inclusive) of the subtask that wrote it
 * @param endGroup last key group (exclusive)
 * @param handle what the backend needs to restore, in its own versioned format (file names,
 *     small files inline); it is input on restore and parsed defensively
 * @param sharedFiles the files in the job's shared state directory the handle refers to, as
 *     references of {@link SharedStateStore}: kept while a retained checkpoint lists them
 * @param uploadedBytes the size of the shared files this snapshot uploaded itself (the others it
 *     refers to were uploaded by an earlier checkpoint); for checkpoint statistics, known when the
 *     snapshot is written and 0 when read back from a state file (the metadata keeps it)
 * @param sharedBytes the size of all of {@code sharedFiles}; as {@code uploadedBytes}
 */
public record NativeKeyedState(String backend, int firstGroup, int endGroup, byte[] handle, List<String> sharedFiles,
        long uploadedBytes, long sharedBytes) {

    public NativeKeyedState {
        sharedFiles = List.copyOf(sharedFiles);
        if (uploadedBytes < 0 || sharedBytes < uploadedBytes) {
            throw new IllegalArgumentException("shared file sizes: uploaded " + uploadedBytes + " of " + sharedBytes);
        }
    }

    /** State read back from a state file, whose shared files' sizes are not stored there. */
    public NativeKeyedState(String backend, int firstGroup, int endGroup, byte[] handle, List<String> sharedFiles) {
        this(backend, firstGroup, endGroup, handle, sharedFiles, 0, 0);
    }

    /** Whether this state holds key groups of the subtask owning {@code first..end-1}. */
    public boolean overlaps(int first, int end) {
        return firstGroup < end && first < endGroup;
    }
}
