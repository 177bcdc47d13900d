package dev.onceflow.state.rocksdb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
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
 * {@code subtask-<n>-<attempt>.lock}, taken before any of its files exist and released after they
 * are gone. Whenever an attempt starts, it first deletes the files of every attempt under the
 * same root whose lock nobody holds: the operating system drops a process's locks when the
 * process ends, however it ends.
 *
 * <p>Within this process, lock files are tracked in {@link #HELD} and never opened a second time:
 * with POSIX locks, closing any channel to a file drops every lock the process holds on it.
 */
final class AttemptLock implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AttemptLock.class);
    private static final String SUFFIX = ".lock";
    /** An attempt's directory or one of its siblings; group 1 is the attempt's directory name. */
    private static final Pattern ATTEMPT_FILE =
            Pattern.compile("(subtask-\\d+-[A-Za-z0-9_-]+)(\\.(?:chk|restore|snapshot)-\\d+|\\.lock)?");
    /** Lock files this process holds. */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;

    private AttemptLock(Path file, FileChannel channel, FileLock lock) {
        this.file = file;
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
    static synchronized AttemptLock acquire(Path root, Path directory) throws IOException {
        deleteAbandoned(root);
        Path file = lockFileOf(directory);
        Files.createDirectories(directory.getParent());
        if (!HELD.add(file)) {
            throw new IOException("the local RocksDB directory " + directory + " is already in use in this process");
        }
        FileChannel channel = null;
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                throw new IOException("the local RocksDB directory " + directory + " is in use by another process ("
                        + file + " is locked)");
            }
            return new AttemptLock(file, channel, lock);
        } catch (IOException | RuntimeException e) {
            if (channel != null) {
                channel.close();
            }
            HELD.remove(file);
            throw e;
        }
    }

    /**
     * Releases the lock and deletes its file. Call after the attempt's files are deleted: from
     * then on, any files of the attempt still there count as abandoned.
     */
    @Override
    public void close() throws IOException {
        synchronized (AttemptLock.class) {
            try {
                Files.deleteIfExists(file);
            } finally {
                try {
                    lock.release();
                } finally {
                    channel.close();
                    HELD.remove(file);
                }
            }
        }
    }

    private static Path lockFileOf(Path directory) {
        return directory.resolveSibling(directory.getFileName() + SUFFIX);
    }

    private static void deleteAbandoned(Path root) {
        if (!Files.isDirectory(root)) {
            return;
        }
        try (DirectoryStream<Path> jobs = Files.newDirectoryStream(root, Files::isDirectory)) {
            for (Path job : jobs) {
                try (DirectoryStream<Path> operators = Files.newDirectoryStream(job, Files::isDirectory)) {
                    for (Path operator : operators) {
                        deleteAbandonedIn(operator);
                    }
                }
            }
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("Could not look for RocksDB files that ended processes left in {}: {}", root, e.getMessage());
        }
    }

    /** Deletes the files of each attempt in {@code operator} whose lock nobody holds. */
    private static void deleteAbandonedIn(Path operator) throws IOException {
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
            if (HELD.contains(file)) {
                continue;
            }
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                FileLock lock;
                try {
                    lock = channel.tryLock();
                } catch (OverlappingFileLockException e) {
                    continue; // held by this process after all
                }
                if (lock == null) {
                    continue; // a live process holds it
                }
                long bytes = 0;
                for (Path path : attempt.getValue()) {
                    bytes += deleteRecursively(path);
                }
                Files.deleteIfExists(file);
                List<String> names = attempt.getValue().stream().map(p -> p.getFileName().toString()).sorted().toList();
                LOG.info("Deleted {} bytes of RocksDB files that an ended process left behind: {} in {}",
                        String.format(Locale.ROOT, "%,d", bytes), names, operator);
            } catch (IOException e) {
                LOG.warn("Could not delete the RocksDB files of ended attempt {} in {}: {}", attempt.getKey(), operator,
                        e.getMessage());
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
