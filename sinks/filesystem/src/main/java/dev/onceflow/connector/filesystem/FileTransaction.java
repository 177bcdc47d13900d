package dev.onceflow.connector.filesystem;

import java.util.Objects;

/**
 * The handle of one part file's transaction: where it is written, where it is committed to, and
 * how many bytes were pre-committed. Everything a later process needs to commit or abort it.
 *
 * @param inProgressPath fully qualified path of the hidden file being written
 * @param finalPath fully qualified path the file is renamed to on commit
 * @param length bytes made durable by pre-commit; 0 while open, and 0 after pre-committing an
 *     empty transaction, which has no file and nothing to commit
 */
public record FileTransaction(String inProgressPath, String finalPath, long length) {

    public FileTransaction {
        Objects.requireNonNull(inProgressPath, "inProgressPath");
        Objects.requireNonNull(finalPath, "finalPath");
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length + " of " + inProgressPath);
        }
    }

    /** This handle with the pre-committed length. */
    FileTransaction withLength(long preCommittedLength) {
        return new FileTransaction(inProgressPath, finalPath, preCommittedLength);
    }
}
