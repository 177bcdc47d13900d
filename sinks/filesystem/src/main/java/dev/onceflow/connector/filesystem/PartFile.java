package dev.onceflow.connector.filesystem;

import java.util.Objects;

/**
 * One part file of a {@link FileTransaction}.
 *
 * <p>Paths are relative to the sink's output directory (file names, as part files are written in
 * it directly), so the handle commits into the directory the sink that recovers it is configured
 * with (rule 2PC-9). Handles from checkpoints of earlier builds (serializer versions 1 and 2) hold
 * fully qualified paths, which the writer accepts only under its output directory.
 *
 * @param inProgressPath path of the hidden file being written
 * @param finalPath path the file is renamed to on commit
 * @param length bytes made durable by pre-commit; 0 while open, and 0 for the name planned by
 *     {@code beginTransaction} when nothing was written, which has no file and nothing to commit
 */
public record PartFile(String inProgressPath, String finalPath, long length) {

    public PartFile {
        Objects.requireNonNull(inProgressPath, "inProgressPath");
        Objects.requireNonNull(finalPath, "finalPath");
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length + " of " + inProgressPath);
        }
    }

    PartFile withLength(long preCommittedLength) {
        return new PartFile(inProgressPath, finalPath, preCommittedLength);
    }
}
