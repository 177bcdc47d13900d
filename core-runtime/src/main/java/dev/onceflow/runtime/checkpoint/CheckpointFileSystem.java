package dev.onceflow.runtime.checkpoint;

import java.io.IOException;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The file operations the checkpoint layout of {@link CheckpointStorage} needs, on one kind of
 * storage. Local disk is built in; other schemes come from a {@link Provider} on the class path
 * (module {@code onceflow-checkpoint-storage-hadoop} serves HDFS: {@code hdfs}, {@code viewfs},
 * {@code webhdfs}, {@code swebhdfs}). Implementations are called from the coordinator and from snapshot threads at
 * once, so they must be thread-safe; they hold no per-checkpoint state.
 *
 * <p>What each operation MUST guarantee, numbered as in {@code docs/spec.md} (CFS rules):
 * <ul>
 * <li>CFS-1 {@link #writeAtomically}: once it returns, the file holds exactly the bytes and
 *     survives a crash of this process and of the machine. If it fails or the process dies
 *     first, the target holds its previous content or does not exist: never a partial file.
 * <li>CFS-2 {@link #read} and {@link #open} of a missing file throw {@link java.nio.file.NoSuchFileException}.
 * <li>CFS-3 {@link #listDirectories} of a missing location returns an empty list.
 * <li>CFS-4 {@link #mkdirs} creates missing parents and succeeds if the directory exists.
 * <li>CFS-5 {@link #deleteRecursively} of a missing location succeeds without effect.
 * <li>CFS-6 {@link #writeDurably}: once it returns, the file holds exactly the bytes and survives
 *     a crash of this process; it survives a crash of the machine once a later
 *     {@link #writeAtomically} into the same directory returned. If it fails, it leaves no file
 *     of its own; if the process dies first, the target may hold part of the bytes.
 * <li>CFS-7 {@link #writeAtomicallyOwnerOnly}: CFS-1, in a file that only its owner can read or
 *     write from the moment it exists, temporary file included; a file system that cannot do
 *     that throws instead of writing.
 * </ul>
 */
public interface CheckpointFileSystem {

    /** Writes {@code bytes} to {@code target} durably, replacing it atomically (CFS-1). */
    void writeAtomically(CheckpointLocation target, byte[] bytes) throws IOException;

    /**
     * Writes what {@code content} writes to {@code target} durably, replacing it atomically (CFS-1),
     * without holding the whole file in memory: state files of hundreds of megabytes go to storage
     * as they are encoded. If {@code content} throws, nothing is renamed and the exception is
     * rethrown; the target keeps its previous content or does not exist.
     *
     * <p>The default collects the bytes and calls {@link #writeAtomically(CheckpointLocation, byte[])};
     * implementations override it to stream.
     */
    default void writeAtomically(CheckpointLocation target, Content content) throws IOException {
        java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
        content.writeTo(buffer);
        writeAtomically(target, buffer.toByteArray());
    }

    /**
     * Writes what {@code content} writes to {@code target}, a new file that only a later
     * {@link #writeAtomically} in the same directory makes reachable (a task's state file, which
     * only {@code _metadata} names), durably but not atomically (CFS-6). Such a file needs no
     * rename and no sync of its directory of its own: the atomic write that publishes it syncs
     * the directory, and a torn file is never published because the process died before that
     * write. Callers checksum what they write this way, and only to a target that does not exist
     * yet. If {@code content} throws, the target is deleted and the exception rethrown. Local disk
     * refuses a target that exists ({@link java.nio.file.FileAlreadyExistsException}) and leaves
     * it alone: it was written by someone else, such as a snapshot thread of an attempt that ended.
     *
     * <p>The default is {@link #writeAtomically(CheckpointLocation, Content)}, which keeps this
     * rule too; local disk overrides it to save a rename and a directory sync per file.
     */
    default void writeDurably(CheckpointLocation target, Content content) throws IOException {
        writeAtomically(target, content);
    }

    /**
     * Writes {@code bytes} to {@code target} as {@link #writeAtomically(CheckpointLocation, byte[])}
     * does (CFS-1), into a file only its owner can read or write, from the moment it is created and
     * not from a later change of its mode (CFS-7): the secret of the job's control endpoint, which
     * must never be readable by another user, not even for a moment.
     *
     * <p>The default throws: a file system that cannot restrict a file to its owner must not be
     * handed the secret.
     */
    default void writeAtomicallyOwnerOnly(CheckpointLocation target, byte[] bytes) throws IOException {
        throw new IOException(target + ": " + getClass().getSimpleName()
                + " cannot create a file that only its owner can read");
    }

    /** The bytes of a file, written to a stream the caller owns (do not close it). */
    @FunctionalInterface
    interface Content {
        void writeTo(java.io.OutputStream out) throws IOException;
    }

    /** All bytes of {@code file} (CFS-2). */
    byte[] read(CheckpointLocation file) throws IOException;

    /**
     * The bytes of {@code file} as a stream the caller closes, for files too large to hold in
     * memory (shared state files of hundreds of megabytes). The default reads the whole file
     * first; file systems that can stream override it (CFS-2).
     */
    default java.io.InputStream open(CheckpointLocation file) throws IOException {
        return new java.io.ByteArrayInputStream(read(file));
    }

    boolean exists(CheckpointLocation location) throws IOException;

    /** The sub-directories of {@code directory}, in no particular order (CFS-3). */
    List<CheckpointLocation> listDirectories(CheckpointLocation directory) throws IOException;

    /** Creates {@code directory} and its parents (CFS-4). */
    void mkdirs(CheckpointLocation directory) throws IOException;

    /** Deletes a file, or a directory with everything in it (CFS-5). */
    void deleteRecursively(CheckpointLocation location) throws IOException;

    /**
     * The file system serving {@code location}: local disk for {@code file:} locations,
     * otherwise the first {@link Provider} found by {@link ServiceLoader} that supports it.
     *
     * @throws IllegalArgumentException if no provider on the class path supports the scheme
     */
    static CheckpointFileSystem of(CheckpointLocation location) throws IOException {
        return location.isLocal() ? LocalCheckpointFileSystem.INSTANCE : providerOf(location).open(location);
    }

    /**
     * Checks, without I/O, that some file system serves {@code location}, so a job file naming a
     * scheme nobody serves fails at start rather than at its first checkpoint.
     *
     * @throws IllegalArgumentException if none does, naming the module to add
     */
    static void requireSupported(CheckpointLocation location) {
        if (!location.isLocal()) {
            providerOf(location);
        }
    }

    private static Provider providerOf(CheckpointLocation location) {
        for (Provider provider : ServiceLoader.load(Provider.class, CheckpointFileSystem.class.getClassLoader())) {
            if (provider.supports(location)) {
                return provider;
            }
        }
        throw new IllegalArgumentException("no checkpoint storage for '" + location + "': nothing on the class path serves '"
                + location.uri().getScheme() + ":' (for hdfs: put onceflow-checkpoint-storage-hadoop on the class path)");
    }

    /**
     * A source of {@link CheckpointFileSystem}s for locations other than local disk, registered
     * in {@code META-INF/services/dev.onceflow.runtime.checkpoint.CheckpointFileSystem$Provider}.
     */
    interface Provider {

        /** Whether this provider serves {@code location}, judged by its scheme; must not do I/O. */
        boolean supports(CheckpointLocation location);

        /** The file system serving {@code location}; may be shared with other callers. */
        CheckpointFileSystem open(CheckpointLocation location) throws IOException;
    }
}
