package dev.onceflow.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * The temp directories of the job processes ({@code java.io.tmpdir} of each child JVM), and finding
 * those that a killed test JVM left behind.
 *
 * <p>A test JVM deletes its children's directories itself ({@link JobProcess}), but a test JVM that
 * is SIGKILLed runs no exit hook, and its running children go on. So each directory holds
 * {@value #OWNER_FILE} and {@value #CHILD_FILE}: pid, start time and host (boot id and pid
 * namespace) of the test JVM and of the child. {@link #deleteAbandoned} deletes the directories
 * whose owner's pid no longer lives on this host, and kills their child first if it still runs.
 *
 * <p>The files are input (anyone who can write to the temp directory can put one there), so:
 * only directories of this user are looked at; stamps of another host (another boot, another
 * container's pid namespace) are not trusted, and such directories fall back to the age rule
 * ({@link #ABANDONED_AFTER} without a change); and a process is killed only if it is alive with the
 * stamped start time and was started with {@code -Djava.io.tmpdir=<that directory>}. A dead owner's
 * directory is deleted even when its child cannot be confirmed that way; such a process, if it is
 * the job, goes on without its temp directory.
 */
final class JobTempDirectories {

    /** Prefix of every child's temp directory. */
    static final String PREFIX = "onceflow-job-tmp-";
    /** In a child's temp directory: the test JVM that started the child. */
    static final String OWNER_FILE = ".onceflow-owner";
    /** In a child's temp directory: the child. */
    static final String CHILD_FILE = ".onceflow-child";
    /** Age after which a directory whose owner cannot be judged counts as abandoned: no case runs a job that long. */
    static final Duration ABANDONED_AFTER = Duration.ofDays(1);
    /** This boot and pid namespace, as {@code <boot id>/<pid namespace>}; {@code unknown} where /proc does not tell. */
    static final String HOST = host();
    private static final String UNKNOWN = "unknown";

    private JobTempDirectories() {
    }

    /**
     * {@code java.io.tmpdir}, absolute: a child runs in its job's directory, where a relative one
     * would name another place.
     */
    static Path defaultRoot() {
        return Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
    }

    /** Creates a child's temp directory in {@code root}, with this JVM as its owner. */
    static Path create(Path root) throws IOException {
        Path directory = Files.createTempDirectory(root.toAbsolutePath(), PREFIX);
        try {
            ProcessStamp.of(ProcessHandle.current()).write(directory.resolve(OWNER_FILE));
        } catch (IOException | RuntimeException e) {
            delete(directory);
            throw e;
        }
        return directory;
    }

    /** Notes the child in its directory; best effort: only a later sweep after this JVM was killed needs it. */
    static void noteChild(Path directory, ProcessHandle child) {
        try {
            ProcessStamp.of(child).write(directory.resolve(CHILD_FILE));
        } catch (IOException | RuntimeException e) {
            System.err.println("onceflow conformance: could not note the job process in " + directory + ": " + e);
        }
    }

    /** Deletes a directory and what it holds; what cannot be deleted stays, with a line on stderr. */
    static void delete(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println("onceflow conformance: could not delete the temp directory " + directory
                    + " of a job process: " + e);
        }
    }

    /**
     * Deletes the job temp directories in {@code root} that a test JVM no longer running left behind,
     * killing their job first if it still runs (see the class comment for when). A directory whose
     * owner cannot be judged counts as abandoned once not modified since {@code before}. Returns how
     * many were deleted. Best effort: an entry that cannot be read is skipped.
     */
    static int deleteAbandoned(Path root, Instant before) {
        List<Path> candidates;
        try (Stream<Path> paths = Files.list(root)) {
            candidates = paths.filter(path -> path.getFileName().toString().startsWith(PREFIX)).toList();
        } catch (IOException | UncheckedIOException e) {
            System.err.println("onceflow conformance: could not look for abandoned job temp directories in " + root
                    + ": " + e);
            return 0;
        }
        Optional<Object> uid = uid(Path.of("/proc", Long.toString(ProcessHandle.current().pid())));
        String user = System.getProperty("user.name");
        int deleted = 0;
        for (Path directory : candidates) {
            try {
                // By uid where it can be read: a uid without a name (a container's -u 1001) has user.name "?".
                boolean ours = uid.isPresent() ? uid.equals(uid(directory))
                        : Files.getOwner(directory, LinkOption.NOFOLLOW_LINKS).getName().equals(user);
                if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS) || !ours) {
                    continue;
                }
                Optional<ProcessStamp> owner = ProcessStamp.read(directory.resolve(OWNER_FILE))
                        .filter(ProcessStamp::ofThisHost);
                boolean abandoned = owner.isPresent() ? !owner.get().pidAlive()
                        : Files.getLastModifiedTime(directory, LinkOption.NOFOLLOW_LINKS).toInstant().isBefore(before);
                if (!abandoned) {
                    continue;
                }
                ProcessStamp.read(directory.resolve(CHILD_FILE)).filter(ProcessStamp::ofThisHost)
                        .flatMap(child -> child.runningWith("-Djava.io.tmpdir=" + directory))
                        .ifPresent(JobTempDirectories::kill);
                delete(directory);
                deleted++;
            } catch (IOException | RuntimeException e) {
                // Deleted meanwhile by another sweep, or not ours to read: leave it.
            }
        }
        return deleted;
    }

    private static Optional<Object> uid(Path path) {
        try {
            return Optional.ofNullable(Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static void kill(ProcessHandle child) {
        child.destroyForcibly();
        try {
            child.onExit().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            System.err.println("onceflow conformance: a job left running by a killed test JVM, pid " + child.pid()
                    + ", did not end: " + e);
        }
    }

    private static String host() {
        try {
            String boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id"), StandardCharsets.US_ASCII).trim();
            String namespace = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
            String host = boot + "/" + namespace;
            return host.matches("[A-Za-z0-9:\\[\\]/_-]{1,120}") ? host : UNKNOWN;
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
    }

    /** A process as written into a child's temp directory. */
    record ProcessStamp(long pid, long startMillis, String host) {

        static ProcessStamp of(ProcessHandle process) {
            return new ProcessStamp(process.pid(),
                    process.info().startInstant().map(Instant::toEpochMilli).orElse(-1L), HOST);
        }

        /** Reads a stamp; empty if the file is missing or is not one. */
        static Optional<ProcessStamp> read(Path file) {
            try {
                if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || Files.size(file) > 256) {
                    return Optional.empty();
                }
                String[] fields = Files.readString(file, StandardCharsets.US_ASCII).trim().split(" ");
                if (fields.length != 3) {
                    return Optional.empty();
                }
                return Optional.of(new ProcessStamp(Long.parseLong(fields[0]), Long.parseLong(fields[1]), fields[2]));
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        }

        void write(Path file) throws IOException {
            Files.writeString(file, pid + " " + startMillis + " " + host + "\n", StandardCharsets.US_ASCII);
        }

        /** Whether it was written on this boot in this pid namespace, so that its pid means the same here. */
        boolean ofThisHost() {
            return !UNKNOWN.equals(host) && host.equals(HOST);
        }

        /**
         * Whether its pid is alive, whatever the start time: a reused pid keeps a dead owner's
         * directory a while, where a clock step (which shifts the start times the JDK reports) could
         * otherwise make a live owner look dead.
         */
        boolean pidAlive() {
            return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }

        /**
         * The process, if it is alive, started when stamped (within a second) and has
         * {@code argument} on its command line ({@code /proc}; never this JVM).
         */
        Optional<ProcessHandle> runningWith(String argument) {
            if (startMillis < 0 || pid == ProcessHandle.current().pid()) {
                return Optional.empty();
            }
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                    .filter(handle -> handle.info().startInstant()
                            .map(start -> Math.abs(start.toEpochMilli() - startMillis) <= 1_000).orElse(false))
                    .filter(handle -> commandLineHas(handle.pid(), argument));
        }

        private static boolean commandLineHas(long pid, String argument) {
            try {
                String commandLine = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")),
                        StandardCharsets.UTF_8);
                return List.of(commandLine.split("\0")).contains(argument);
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }
    }
}
