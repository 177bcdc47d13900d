package dev.onceflow.state.rocksdb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Marks an attempt's local files as in use, so that the files of a process that died are found
 * and deleted.
 *
 * <p>A subtask's database lives in {@code <root>/<job>/<operator>/subtask-<n>-<attempt>}, with
 * siblings named after it: {@code .chk-<id>} (native checkpoints), {@code .restore-<i>} and
 * {@code .snapshot-<n>} (scratch of restores and full snapshots).
 * {@link RocksDBKeyedStateBackend#close} deletes them all; a process that dies first (killed,
 * out of memory, power lost) cannot, and every attempt has a new name, so nothing would ever
 * reuse them. Hence, while an attempt runs, its process holds an exclusive lock on
 * {@code subtask-<n>-<attempt>.lock}, taken before any of its files exist and released once they
 * are gone (or, if opening the database failed, left to the next scan). Whenever an attempt
 * starts, it first deletes the files of every attempt under the same root whose lock nobody
 * holds: the operating system drops a process's locks when the process ends, however it ends.
 * A dead attempt's files are deleted while holding its lock. A scan that locks a lock file
 * checks afterwards that the name still leads to the file it opened: a scan that finished first
 * may have deleted it, and then the lock is worth nothing. (That check compares file keys read
 * before the open and after the lock; it could be fooled only if an attempt with the same name
 * started in between, which unique attempt ids rule out.)
 *
 * <p>Within this process, lock files are tracked in {@link #HELD} by file identity (device and
 * inode where the file system has them, so two spellings of one directory are one file) and
 * never opened a second time: with POSIX locks, closing any channel to a file drops every lock
 * the process holds on it. Opening and checking happen under the class's monitor; deleting does
 * not, so a large deletion holds up no other attempt.
 */
final class AttemptLock implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AttemptLock.class);
    private static final String SUFFIX = ".lock";
    /** An attempt's directory or one of its siblings; group 1 is the attempt's directory name. */
    private static final Pattern ATTEMPT_FILE =
            Pattern.compile("(subtask-\\d+-[A-Za-z0-9_-]+)(\\.(?:chk|restore|snapshot)-\\d+|\\.lock)?");
    /** Identities of the lock files this process holds, as {@link #identity} gives them. */
    private static final Set<Object> HELD = new HashSet<>();

    private final Path file;
    private final Object identity;
    private final FileChannel channel;
    private final FileLock lock;
    private boolean closed;

    private AttemptLock(Path file, Object identity, FileChannel channel, FileLock lock) {
        this.file = file;
        this.identity = identity;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Deletes what dead processes left under {@code root} (two levels down: job, then operator),
     * then locks the attempt whose database will be {@code directory}. Failing to delete old
     * files is logged, not thrown: they only take disk space.
     *
     * @param root the backend's local directory
     * @param directory the attempt's database directory, {@code root/<job>/<operator>/subtask-<n>-<attempt>}
     * @throws IOException if the lock cannot be taken, naming the file; also if another holder
     *     has it, which two attempts with the same name would mean
     */
    static AttemptLock acquire(Path root, Path directory) throws IOException {
        for (Abandoned abandoned : claimAbandoned(root)) {
            try {
                abandoned.delete();
            } catch (RuntimeException e) {
                LOG.warn("Could not delete the RocksDB files {} that an ended process left in {}", abandoned.paths(),
                        abandoned.operator(), e);
            }
        }
        Path file = lockFileOf(directory);
        Files.createDirectories(directory.getParent());
        synchronized (AttemptLock.class) {
            if (Files.exists(file) && HELD.contains(identity(file))) {
                throw new IOException("the local RocksDB directory " + directory
                        + " is already in use in this process");
            }
            FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            try {
                FileLock lock = channel.tryLock();
                if (lock == null) {
                    throw new IOException("the local RocksDB directory " + directory
                            + " is in use by another process (" + file + " is locked)");
                }
                Object identity = identity(file);
                HELD.add(identity);
                return new AttemptLock(file, identity, channel, lock);
            } catch (OverlappingFileLockException e) {
                // This process holds it under an identity HELD does not know: closing the channel
                // would drop that lock, so it is left open.
                throw new IOException("the local RocksDB directory " + directory + " is already in use in this process",
                        e);
            } catch (IOException | RuntimeException e) {
                channel.close();
                throw e;
            }
        }
    }

    /**
     * Releases the lock and deletes its file. Call after the attempt's files are deleted: from
     * then on, any files of the attempt still there count as abandoned. Closing twice does nothing.
     */
    @Override
    public void close() throws IOException {
        synchronized (AttemptLock.class) {
            if (closed) {
                return;
            }
            closed = true;
            try {
                Files.deleteIfExists(file);
            } finally {
                try {
                    lock.release();
                } finally {
                    channel.close();
                    HELD.remove(identity);
                }
            }
        }
    }

    private static Path lockFileOf(Path directory) {
        return directory.resolveSibling(directory.getFileName() + SUFFIX);
    }

    /**
     * What identifies a file however its path is spelled: its file key (device and inode), or
     * its absolute, normalized path on a file system without file keys.
     *
     * @throws NoSuchFileException if there is no such file
     */
    private static Object identity(Path file) throws IOException {
        Object key = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        return key != null ? key : file.toAbsolutePath().normalize();
    }

    /** Takes the lock of every attempt under {@code root} whose lock nobody holds. */
    private static List<Abandoned> claimAbandoned(Path root) {
        List<Abandoned> claimed = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return claimed;
        }
        for (Path job : subdirectories(root)) {
            for (Path operator : subdirectories(job)) {
                try {
                    claimAbandonedIn(operator, claimed);
                } catch (NoSuchFileException e) {
                    // deleted meanwhile
                } catch (IOException | DirectoryIteratorException e) {
                    LOG.warn("Could not look for RocksDB files that ended processes left in {}: {}", operator,
                            e.getMessage());
                }
            }
        }
        return claimed;
    }

    /**
     * The directories in {@code parent}, but not those whose name starts with a dot (no job or
     * operator directory does); none, with a warning, if it cannot be listed.
     */
    private static List<Path> subdirectories(Path parent) {
        List<Path> directories = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(parent,
                p -> !p.getFileName().toString().startsWith(".") && Files.isDirectory(p))) {
            entries.forEach(directories::add);
        } catch (NoSuchFileException e) {
            // deleted meanwhile: nothing left to look at
        } catch (IOException | DirectoryIteratorException e) {
            LOG.warn("Could not look for RocksDB files that ended processes left in {}: {}", parent, e.getMessage());
        }
        return directories;
    }

    private static void claimAbandonedIn(Path operator, List<Abandoned> claimed) throws IOException {
        Map<String, List<Path>> attempts = new TreeMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(operator)) {
            for (Path entry : entries) {
                Matcher name = ATTEMPT_FILE.matcher(entry.getFileName().toString());
                // A lock file alone is no attempt's data: it may be an attempt between taking its
                // lock and creating its directory.
                if (name.matches() && !SUFFIX.equals(name.group(2))) {
                    attempts.computeIfAbsent(name.group(1), n -> new ArrayList<>()).add(entry);
                }
            }
        }
        for (Map.Entry<String, List<Path>> attempt : attempts.entrySet()) {
            Path file = operator.resolve(attempt.getKey() + SUFFIX);
            try {
                Abandoned abandoned = claim(file, operator, attempt.getValue());
                if (abandoned != null) {
                    claimed.add(abandoned);
                }
            } catch (IOException e) {
                LOG.warn("Could not check whether attempt {} in {} has ended: {}", attempt.getKey(), operator,
                        e.getMessage());
            }
        }
    }

    /**
     * Locks {@code file} if this process does not hold it, no other does, and it is still the
     * attempt's lock file once locked; else returns null.
     */
    private static Abandoned claim(Path file, Path operator, List<Path> paths) throws IOException {
        synchronized (AttemptLock.class) {
            Object before = identityOrNull(file);
            if (before != null && HELD.contains(before)) {
                return null; // an attempt of this process, or claimed by another scan of it
            }
            // No other thread of this process opens the file meanwhile: every open is under this
            // monitor. Without a lock file (its attempt failed to open, or a scan failed to delete
            // its files), one is made, and only if nobody made it first.
            FileChannel channel;
            try {
                channel = before == null
                        ? FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
                        : FileChannel.open(file, StandardOpenOption.WRITE);
            } catch (FileAlreadyExistsException | NoSuchFileException e) {
                return null; // another scan is at it; the next scan looks again
            }
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                // This process holds it under an identity HELD does not know. Closing the channel
                // would drop that lock, so it is left open.
                LOG.warn("{} is locked by this process, but not known as held; left alone", file);
                return null;
            } catch (IOException | RuntimeException e) {
                channel.close();
                throw e;
            }
            // This process held no lock on the file before, so closing the channel drops none.
            try {
                Object after = lock == null ? null : identityOrNull(file);
                if (after == null || (before != null && !before.equals(after))) {
                    // Nobody's lock file any more: a scan that finished first deleted it.
                    channel.close();
                    return null;
                }
                HELD.add(after);
                return new Abandoned(operator, paths, new AttemptLock(file, after, channel, lock));
            } catch (IOException | RuntimeException e) {
                channel.close();
                throw e;
            }
        }
    }

    private static Object identityOrNull(Path file) throws IOException {
        try {
            return identity(file);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** An ended attempt's files, and its lock, held until they are deleted. */
    private record Abandoned(Path operator, List<Path> paths, AttemptLock lock) {

        void delete() {
            try (lock) {
                long bytes = 0;
                for (Path path : paths) {
                    bytes += deleteRecursively(path);
                }
                List<String> names = paths.stream().map(p -> p.getFileName().toString()).sorted().toList();
                LOG.info("Deleted {} bytes of RocksDB files that an ended process left behind: {} in {}",
                        String.format(Locale.ROOT, "%,d", bytes), names, operator);
            } catch (IOException e) {
                LOG.warn("Could not delete the RocksDB files {} that an ended process left in {}: {}", paths,
                        operator, e.getMessage());
            }
        }
    }

    /** Deletes a file or a directory tree; returns the bytes of the regular files deleted. */
    private static long deleteRecursively(Path path) throws IOException {
        long bytes = 0;
        try (Stream<Path> paths = Files.walk(path)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                try {
                    bytes += Files.isRegularFile(p) ? Files.size(p) : 0;
                    Files.deleteIfExists(p);
                } catch (NoSuchFileException e) {
                    // gone already: another process cleaned up the same attempt
                }
            }
        } catch (NoSuchFileException e) {
            // gone already
        } catch (UncheckedIOException e) {
            if (!(e.getCause() instanceof NoSuchFileException)) {
                throw e.getCause();
            }
        }
        return bytes;
    }
}
