package dev.onceflow.connector.filesystem;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.hadoop.fs.Path;

/**
 * The handle of one checkpoint's transaction of one subtask: the output directory the sink was
 * configured with, and its part files, where each is written, where it is committed to and how
 * many bytes were pre-committed. Everything a later process needs to commit or abort it.
 *
 * <p>The directory lets a writer configured with another output find the same files there (rule
 * 2PC-11): a job directory copied or moved with its checkpoints commits into its own output, a
 * savepoint restored into a sink with a changed path commits where the files were written.
 *
 * <p>An open handle (from {@code beginTransaction}) names the first part file only; the writer
 * adds a part each time the rolling policy closes one. A pre-committed handle lists every part
 * file written, in order, or the planned first one with length 0 if nothing was written.
 *
 * @param directory fully qualified output directory of the sink that wrote the handle, as it was
 *     configured then; every part file's paths lie under it
 * @param parts at least one; the first one's in-progress path identifies the transaction
 */
public record FileTransaction(String directory, List<PartFile> parts) {

    /**
     * @throws IllegalArgumentException if there is no part file, or a part file's paths do not lie
     *     under {@code directory}
     */
    public FileTransaction {
        Objects.requireNonNull(directory, "directory");
        parts = List.copyOf(parts);
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("a file transaction has at least one part file");
        }
        Path base = new Path(directory);
        for (PartFile part : parts) {
            relativePath(base, part.inProgressPath());
            relativePath(base, part.finalPath());
        }
    }

    /**
     * A handle whose directory is the one its part files are in, as every build wrote them before
     * handles recorded the directory: directly in the sink's output directory.
     *
     * @throws IllegalArgumentException if the part files are not all in one directory
     */
    public FileTransaction(List<PartFile> parts) {
        this(directoryOf(parts), parts);
    }

    /** A transaction of one part file, in the directory of {@code inProgressPath}. */
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

    /** The same part files at the same paths relative to {@code otherDirectory} (fully qualified). */
    FileTransaction in(String otherDirectory) {
        if (otherDirectory.equals(directory)) {
            return this;
        }
        Path base = new Path(directory);
        Path other = new Path(otherDirectory);
        List<PartFile> moved = new ArrayList<>(parts.size());
        for (PartFile part : parts) {
            moved.add(new PartFile(new Path(other, relativePath(base, part.inProgressPath())).toString(),
                    new Path(other, relativePath(base, part.finalPath())).toString(), part.length()));
        }
        return new FileTransaction(otherDirectory, moved);
    }

    /**
     * {@code path} relative to {@code base}: the names from below {@code base} down to it.
     *
     * @throws IllegalArgumentException if {@code path} is not below {@code base}
     */
    private static String relativePath(Path base, String path) {
        StringBuilder relative = new StringBuilder();
        for (Path at = new Path(path); at.getParent() != null; at = at.getParent()) {
            relative.insert(0, relative.isEmpty() ? at.getName() : at.getName() + Path.SEPARATOR);
            if (at.getParent().equals(base)) {
                return relative.toString();
            }
        }
        throw new IllegalArgumentException("part file " + path + " does not lie under the transaction's directory "
                + base);
    }

    private static String directoryOf(List<PartFile> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("a file transaction has at least one part file");
        }
        Path parent = new Path(parts.get(0).inProgressPath()).getParent();
        if (parent == null) {
            throw new IllegalArgumentException("part file " + parts.get(0).inProgressPath() + " has no directory");
        }
        return parent.toString();
    }
}
