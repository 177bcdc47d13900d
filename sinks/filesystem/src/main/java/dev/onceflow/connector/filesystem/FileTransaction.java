package dev.onceflow.connector.filesystem;

import java.util.List;

/**
 * The handle of one checkpoint's transaction of one subtask: its part files, where each is
 * written, where it is committed to and how many bytes were pre-committed. Everything a later
 * process needs to commit or abort it.
 *
 * <p>An open handle (from {@code beginTransaction}) names the first part file only; the writer
 * adds a part each time the rolling policy closes one. A pre-committed handle lists every part
 * file written, in order, or the planned first one with length 0 if nothing was written.
 *
 * @param parts at least one; the first one's in-progress path identifies the transaction
 */
public record FileTransaction(List<PartFile> parts) {

    public FileTransaction {
        parts = List.copyOf(parts);
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("a file transaction has at least one part file");
        }
    }

    /** A transaction of one part file. */
    public static FileTransaction of(String inProgressPath, String finalPath, long length) {
        return new FileTransaction(List.of(new PartFile(inProgressPath, finalPath, length)));
    }

    /** The in-progress path of the first part file, which the writer keys open transactions by. */
    String key() {
        return parts.get(0).inProgressPath();
    }

    /** Pre-committed bytes over all part files. */
    public long length() {
        return parts.stream().mapToLong(PartFile::length).sum();
    }
}
