package dev.onceflow.conformance;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * Makes the suite's child JVMs start faster with a class data sharing archive of their own: the
 * first fault-free run of each {@link ExecutionTarget} writes the classes it loaded to an archive
 * at exit ({@code -XX:ArchiveClassesAtExit}), and every later run maps them from it
 * ({@code -XX:SharedArchiveFile}) instead of loading, parsing and verifying them again. A case
 * starts two to six JVMs, so start-up is much of a quick profile's time. Measured on 2 cores with
 * JDK 17: Onceflow's CLI 1.1 s to 0.7 s a run, the Flink MiniCluster 3.5 s to 2.0 s.
 *
 * <p>An archive that does not match the JVM or the class path is not used: the JVM loads the
 * classes as usual and says nothing unless asked ({@code -Xlog:cds=info}). Only an archive whose
 * run exited 0 is used; runs with a fault armed never write one, and a killed run's partial file
 * is deleted, so a later fault-free run tries again. After three fault-free runs that exited 0
 * without writing one (a JVM without a base archive, for example), it is given up for that target.
 * One thing a case could see: a JVM that cannot write the archive it was asked to (a full disk)
 * exits 1 after its job ended. So a run writes one only when the disk has at least 1 GiB free
 * ({@link #MIN_FREE_BYTES}); below that, children start without an archive.
 *
 * <p>JDK 17 cannot archive classes from a directory, and a test's class path starts with its
 * {@code target/test-classes} and {@code target/classes}. Each directory on the class path is
 * therefore copied into a jar once per test JVM, and every child JVM, archiving or not, gets the
 * same class path with those jars in the directories' places.
 *
 * <p>{@code -Donceflow.conformance.class-data-sharing=false} turns it off: children then get the
 * test's class path as it is.
 */
final class ClassDataSharing {

    static final String PROPERTY = "onceflow.conformance.class-data-sharing";
    private static final int ATTEMPTS = 3;
    /** Free space needed to write an archive: Flink's is about 75 MB. */
    static final long MIN_FREE_BYTES = 1L << 30;
    /** Once setting up failed, children get the test's class path as it is. */
    private static boolean failed;

    private static ClassDataSharing instance;

    private final Path directory;
    private final String classPath;
    private final Map<ExecutionTarget, Archive> archives = new HashMap<>();

    private ClassDataSharing(Path directory, String classPath) {
        this.directory = directory;
        this.classPath = classPath;
    }

    /**
     * The settings of this test JVM, or null when turned off or when setting up failed (said once
     * on standard error); the jars are made on the first call.
     */
    static synchronized ClassDataSharing get() {
        if (failed || !Boolean.parseBoolean(System.getProperty(PROPERTY, "true"))) {
            return null;
        }
        if (instance == null) {
            Path directory = null;
            try {
                Path parent = Files.createDirectories(Path.of("target", "conformance-work").toAbsolutePath());
                directory = Files.createTempDirectory(parent, "class-data-");
                instance = new ClassDataSharing(directory, jarredClassPath(System.getProperty("java.class.path"), directory));
            } catch (IOException | UncheckedIOException e) {
                failed = true;
                System.err.println("onceflow conformance: child JVMs start without a class data sharing archive: "
                        + "could not copy the class path's directories into jars: " + e);
                if (directory != null) {
                    deleteQuietly(directory);
                }
                return null;
            }
            Path created = directory;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(created)));
        }
        return instance;
    }

    /** The class path every child JVM gets: this JVM's, with each directory replaced by a jar of it. */
    String classPath() {
        return classPath;
    }

    /**
     * The JVM options of one child.
     *
     * @param jvmOptions to add before the class path
     * @param writesArchive whether the child writes the archive: pass its process to {@link #started}
     */
    record Options(List<String> jvmOptions, boolean writesArchive) {
    }

    /**
     * The JVM options a child of {@code target} starts with: the archive's if it is ready, the
     * options that write it if this run may ({@code faultFree}) and no other run is writing it, none
     * otherwise.
     */
    synchronized Options options(ExecutionTarget target, boolean faultFree) {
        Archive archive = archives.computeIfAbsent(target,
                t -> new Archive(directory.resolve("archive-" + archives.size() + ".jsa")));
        if (archive.ready) {
            return new Options(List.of("-XX:SharedArchiveFile=" + archive.file), false);
        }
        if (archive.writing || !faultFree || archive.failedAttempts >= ATTEMPTS || !roomFor(directory)) {
            return new Options(List.of(), false);
        }
        archive.writing = true;
        // The JVM lists every class it could not archive as a warning; errors still show.
        return new Options(List.of("-XX:ArchiveClassesAtExit=" + archive.pending(), "-Xlog:cds=error"), true);
    }

    /** Watches the child started with options that write {@code target}'s archive. */
    void started(ExecutionTarget target, Process process) {
        process.onExit().thenAccept(exited -> finished(target, exited.exitValue()));
    }

    /** Gives the archive up for this attempt: the child that was to write it did not start. */
    synchronized void notStarted(ExecutionTarget target) {
        archives.get(target).writing = false;
    }

    private synchronized void finished(ExecutionTarget target, int exitValue) {
        Archive archive = archives.get(target);
        archive.writing = false;
        Path pending = archive.pending();
        try {
            if (exitValue == 0 && Files.isRegularFile(pending) && Files.size(pending) > 0) {
                Files.move(pending, archive.file, StandardCopyOption.ATOMIC_MOVE);
                archive.ready = true;
                return;
            }
            Files.deleteIfExists(pending);
        } catch (IOException e) {
            // The archive only saves time: the runs go on without one.
        }
        if (exitValue == 0) {
            archive.failedAttempts++;
        }
    }

    /** Whether {@code target}'s archive was written and is given to its runs. */
    synchronized boolean ready(ExecutionTarget target) {
        Archive archive = archives.get(target);
        return archive != null && archive.ready;
    }

    /** Where the archives are written, and whether its disk has room for one ({@link #MIN_FREE_BYTES}). */
    String room() {
        return directory + (roomFor(directory) ? " has room" : " has under 1 GiB free, so no archive is written");
    }

    /** Whether a fault-free run may write an archive now, as far as disk space goes. */
    boolean hasRoom() {
        return roomFor(directory);
    }

    private static boolean roomFor(Path directory) {
        try {
            return Files.getFileStore(directory).getUsableSpace() >= MIN_FREE_BYTES;
        } catch (IOException e) {
            return false;
        }
    }

    private static String jarredClassPath(String classPath, Path directory) throws IOException {
        List<String> entries = new ArrayList<>();
        int jars = 0;
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            Path path = Path.of(entry);
            if (Files.isDirectory(path)) {
                Path jar = directory.resolve("classpath-" + jars++ + ".jar");
                jar(path, jar);
                entries.add(jar.toString());
            } else if (Files.exists(path)) {
                // An entry that does not exist adds no classes, and the archive cannot be written with one.
                entries.add(entry);
            }
        }
        return String.join(java.io.File.pathSeparator, entries);
    }

    private static void jar(Path directory, Path jar) throws IOException {
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file);
                Stream<Path> files = Files.walk(directory, java.nio.file.FileVisitOption.FOLLOW_LINKS)) {
            for (Path path : (Iterable<Path>) files.sorted()::iterator) {
                if (path.equals(directory)) {
                    continue;
                }
                String name = directory.relativize(path).toString().replace(java.io.File.separatorChar, '/');
                boolean isDirectory = Files.isDirectory(path);
                out.putNextEntry(new JarEntry(isDirectory ? name + "/" : name));
                if (!isDirectory) {
                    Files.copy(path, out);
                }
                out.closeEntry();
            }
        }
    }

    private static void deleteQuietly(Path directory) {
        try {
            ConformanceSuiteBase.deleteRecursively(directory);
        } catch (IOException | UncheckedIOException e) {
            // Left in target/, which the next clean removes.
        }
    }

    /** One target's archive: where it goes, and how far it got. */
    private static final class Archive {

        final Path file;
        boolean ready;
        boolean writing;
        int failedAttempts;

        Archive(Path file) {
            this.file = file;
        }

        Path pending() {
            return file.resolveSibling(file.getFileName() + ".writing");
        }
    }
}
