package dev.onceflow.runtime.checkpoint;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Checkpoints on local disk: fsync of file and directory, and an atomic rename, give CFS-1; fsync
 * of the file, CFS-6; mode 0600 given to open(2), CFS-7.
 */
final class LocalCheckpointFileSystem implements CheckpointFileSystem {

    static final LocalCheckpointFileSystem INSTANCE = new LocalCheckpointFileSystem();

    private LocalCheckpointFileSystem() {
    }

    @Override
    public void writeAtomically(CheckpointLocation target, byte[] bytes) throws IOException {
        writeAtomically(target, out -> out.write(bytes));
    }

    @Override
    public void writeAtomically(CheckpointLocation target, Content content) throws IOException {
        Path file = target.toPath();
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        writeAndSync(temp, content, StandardOpenOption.TRUNCATE_EXISTING);
        publish(temp, file);
    }

    /**
     * The mode goes to open(2) with the create, so the file is never readable by others, not even
     * between its creation and a chmod; the umask can only clear more bits. A temporary file left
     * over (by a crash, or by someone else) is deleted rather than reused: its mode is whatever it
     * was created with. The rename keeps the mode.
     */
    @Override
    public void writeAtomicallyOwnerOnly(CheckpointLocation target, byte[] bytes) throws IOException {
        Path file = target.toPath();
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(temp);
        try {
            writeAndSync(temp, out -> out.write(bytes), StandardOpenOption.CREATE_NEW,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            throw new IOException(file + ": " + file.getParent()
                    + " has no POSIX permissions, so no file only its owner can read can be created there", e);
        }
        publish(temp, file);
    }

    private static void publish(Path temp, Path file) throws IOException {
        try {
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("checkpoint storage at " + file.getParent() + " does not support atomic rename", e);
        }
        syncDirectory(file.getParent());
    }

    /**
     * Written in place and fsynced; the directory is synced by the atomic write that publishes it
     * (CFS-6). The file must be new: a file already there belongs to another writer (a snapshot
     * thread of an attempt that ended, still writing), so this write fails instead of truncating
     * or deleting it, and the checkpoint is declined.
     */
    @Override
    public void writeDurably(CheckpointLocation target, Content content) throws IOException {
        writeAndSync(target.toPath(), content, StandardOpenOption.CREATE_NEW);
    }

    /**
     * Writes {@code file} opened with {@code mode} (and {@code attributes} if it creates it) and
     * fsyncs it; deletes it if it was opened and the write fails.
     */
    private static void writeAndSync(Path file, Content content, StandardOpenOption mode, FileAttribute<?>... attributes)
            throws IOException {
        Set<StandardOpenOption> options = EnumSet.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, mode);
        FileChannel channel = FileChannel.open(file, options, attributes);
        try (channel) {
            java.io.OutputStream out = new java.io.BufferedOutputStream(java.nio.channels.Channels.newOutputStream(channel),
                    1 << 16);
            content.writeTo(out);
            out.flush();
            channel.force(true);
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException deleteFailed) {
                e.addSuppressed(deleteFailed);
            }
            throw e;
        }
    }

    /** Fsyncs a directory so a rename or new file in it survives a machine crash. */
    private static void syncDirectory(Path directory) {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // Some file systems cannot open directories for sync; the rename itself is still atomic.
        }
    }

    @Override
    public byte[] read(CheckpointLocation file) throws IOException {
        return Files.readAllBytes(file.toPath());
    }

    @Override
    public java.io.InputStream open(CheckpointLocation file) throws IOException {
        return Files.newInputStream(file.toPath());
    }

    @Override
    public boolean exists(CheckpointLocation location) {
        return Files.exists(location.toPath());
    }

    @Override
    public List<CheckpointLocation> listDirectories(CheckpointLocation directory) throws IOException {
        if (!Files.isDirectory(directory.toPath())) {
            return new ArrayList<>();
        }
        try (Stream<Path> entries = Files.list(directory.toPath())) {
            return entries.filter(Files::isDirectory).map(CheckpointLocation::of)
                    .collect(java.util.stream.Collectors.toCollection(ArrayList::new));
        }
    }

    @Override
    public void mkdirs(CheckpointLocation directory) throws IOException {
        Files.createDirectories(directory.toPath());
    }

    @Override
    public void deleteRecursively(CheckpointLocation location) throws IOException {
        Path root = location.toPath();
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
