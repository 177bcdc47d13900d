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
 */
public record NativeKeyedState(String backend, int firstGroup, int endGroup, byte[] handle, List<String> sharedFiles) {

    public NativeKeyedState {
        sharedFiles = List.copyOf(sharedFiles);
    }

    /** Whether this state holds key groups of the subtask owning {@code first..end-1}. */
    public boolean overlaps(int first, int end) {
        return firstGroup < end && first < endGroup;
    }
}
