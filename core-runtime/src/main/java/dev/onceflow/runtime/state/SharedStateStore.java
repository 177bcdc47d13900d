package dev.onceflow.runtime.state;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Files that several checkpoints of one job share (a RocksDB backend's SST files), kept in the
 * job's checkpoint directory under {@code shared/}. A file is uploaded once, by the checkpoint
 * that first needs it, and referenced by every later one that still does; the runtime deletes it
 * when no retained checkpoint lists it (see {@link NativeKeyedState#sharedFiles()}).
 *
 * <p>Called on snapshot threads (upload) and task threads (download, on restore): thread-safe.
 */
public interface SharedStateStore {

    /**
     * Copies a local file into the shared directory durably, under a name no other upload gets.
     *
     * @param checkpointId the checkpoint that uploads it: the file is not deleted while that
     *     checkpoint may still complete
     * @return the reference to list in {@link NativeKeyedState#sharedFiles()} and to download by
     */
    String upload(long checkpointId, Path localFile) throws IOException;

    /**
     * Copies a shared file to local disk.
     *
     * @throws IOException if the reference is malformed or the file is missing
     */
    void download(String reference, Path localFile) throws IOException;
}
