package dev.onceflow.connector.filesystem;

import java.util.Objects;

/**
 * One part file of a {@link FileTransaction}.
 *
 * @param inProgressPath fully qualified path of the hidden file being written
 * @param finalPath fully qualified path the file is renamed to on commit
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
