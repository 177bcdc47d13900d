package dev.onceflow.testing.elasticsearch;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The Elasticsearch installation nodes run from: the official distribution zip this module
 * depends on ({@code org.elasticsearch.distribution.integ-test-zip:elasticsearch}), found where
 * Maven resolved it and unpacked once per machine and version into {@code java.io.tmpdir}, where
 * every JVM, and the unprivileged user nodes run as when tests run as root, can read it.
 *
 * <p>The zip is a Maven dependency rather than a download of its own so that a clean clone
 * builds with nothing but Maven, and Maven's local repository caches it like any other artifact.
 */
final class ElasticsearchDistribution {

    /** Written by the build: the distribution's version (from the root pom) and its zip's path. */
    private static final Properties PROPERTIES = loadProperties();

    /** The distribution's version. */
    static final String VERSION = PROPERTIES.getProperty("version");

    private static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwxr-xr-x");
    private static final Set<PosixFilePermission> EXECUTABLE = DIRECTORY;
    private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-r--r--");

    private static Path home;

    private ElasticsearchDistribution() {
    }

    /**
     * The unpacked distribution ({@code bin/elasticsearch}, {@code lib}, {@code modules},
     * {@code config}, ...), unpacking it first if no JVM on this machine has yet.
     *
     * @throws IllegalStateException if the zip is nowhere to be found or cannot be unpacked
     */
    static synchronized Path home() {
        if (home == null) {
            Path zip = locateZip(PROPERTIES.getProperty("zip"), System.getProperty("java.class.path", ""),
                    Path.of(System.getProperty("user.home")));
            try {
                home = unpack(zip, Path.of(System.getProperty("java.io.tmpdir")));
            } catch (IOException e) {
                throw new IllegalStateException("cannot unpack the Elasticsearch distribution " + zip + ": " + e, e);
            }
        }
        return home;
    }

    /** {@code elasticsearch-<version>.zip}: the file name Maven gives the distribution. */
    static String zipName() {
        return "elasticsearch-" + VERSION + ".zip";
    }

    /**
     * Finds the zip, trying in turn:
     * <ol>
     * <li>{@code recorded}: where Maven resolved it when it built this module, written into
     *     {@code distribution.properties}. Maven puts no zip on a class path, but it does resolve
     *     this module's dependencies, the zip among them, for every module that depends on it, into
     *     the same local repository.
     * <li>an entry of {@code classPath} named {@link #zipName()}: for launchers that put every
     *     dependency on the class path, zips too;
     * <li>the default local repository under {@code userHome}: for IDEs that run tests with
     *     resources filtered without that path.
     * </ol>
     */
    static Path locateZip(String recorded, String classPath, Path userHome) {
        List<String> tried = new ArrayList<>();
        if (recorded != null && !recorded.isBlank() && !recorded.startsWith("${")) {
            tried.add(recorded);
            if (Files.isRegularFile(Path.of(recorded))) {
                return Path.of(recorded);
            }
        }
        for (String entry : classPath.split(File.pathSeparator)) {
            if (entry.endsWith(zipName()) && Files.isRegularFile(Path.of(entry))) {
                return Path.of(entry);
            }
        }
        tried.add("the class path");
        Path defaultRepository = userHome.resolve(".m2/repository/org/elasticsearch/distribution/integ-test-zip/elasticsearch")
                .resolve(VERSION).resolve(zipName());
        tried.add(defaultRepository.toString());
        if (Files.isRegularFile(defaultRepository)) {
            return defaultRepository;
        }
        throw new IllegalStateException("the Elasticsearch distribution " + zipName() + " is not in " + String.join(", ", tried)
                + ": depend on dev.onceflow:onceflow-testing-elasticsearch, which has Maven fetch"
                + " org.elasticsearch.distribution.integ-test-zip:elasticsearch:" + VERSION + ":zip, and build with Maven");
    }

    /**
     * Returns {@code parent/onceflow-elasticsearch-<version>}, unpacking {@code zip} into it unless
     * it is complete already.
     *
     * <p>Other JVMs (parallel builds) may unpack at the same time: each unpacks into a staging
     * directory of its own and renames it into place atomically, so nobody ever sees a half
     * unpacked tree, and whoever loses the race uses the winner's.
     */
    static Path unpack(Path zip, Path parent) throws IOException {
        Path target = parent.resolve("onceflow-elasticsearch-" + VERSION);
        try (ZipFile zipFile = new ZipFile(zip.toFile())) {
            if (isComplete(target, zipFile)) {
                return target;
            }
            if (Files.exists(target)) {
                // Files went missing (a /tmp cleaner deletes what nobody read lately): start over.
                discard(target);
            }
            Path staging = Files.createTempDirectory(parent, target.getFileName() + ".unpacking-");
            try {
                extract(zipFile, staging);
                try {
                    Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
                } catch (IOException e) {
                    if (!isComplete(target, zipFile)) {
                        throw e;
                    }
                    // Another JVM renamed its copy into place first.
                }
            } finally {
                deleteRecursively(staging);
            }
            return target;
        }
    }

    /** The zip's only top-level entry, which {@link #unpack} leaves out. */
    private static String topDirectory() {
        return "elasticsearch-" + VERSION;
    }

    private static void extract(ZipFile zipFile, Path staging) throws IOException {
        Enumeration<? extends ZipEntry> entries = zipFile.entries();
        while (entries.hasMoreElements()) {
            ZipEntry entry = entries.nextElement();
            Path file = unpackedPath(staging, entry);
            if (file.equals(staging)) {
                continue;
            }
            if (entry.isDirectory()) {
                Files.createDirectories(file);
            } else {
                Files.createDirectories(file.getParent());
                try (InputStream in = zipFile.getInputStream(entry)) {
                    Files.copy(in, file);
                }
            }
        }
        // java.util.zip drops the zip's Unix modes, and what the umask left is no guide: everyone may
        // read and traverse (the node may run as another user), the launch scripts must be executable.
        Path bin = staging.resolve("bin");
        try (Stream<Path> files = Files.walk(staging)) {
            for (Path file : files.toList()) {
                Set<PosixFilePermission> permissions = Files.isDirectory(file) ? DIRECTORY
                        : file.getParent().equals(bin) ? EXECUTABLE : FILE;
                Files.setPosixFilePermissions(file, permissions);
            }
        }
    }

    private static boolean isComplete(Path target, ZipFile zipFile) throws IOException {
        if (!Files.isDirectory(target)) {
            return false;
        }
        Enumeration<? extends ZipEntry> entries = zipFile.entries();
        while (entries.hasMoreElements()) {
            ZipEntry entry = entries.nextElement();
            Path file = unpackedPath(target, entry);
            boolean present = entry.isDirectory() ? Files.isDirectory(file)
                    : Files.isRegularFile(file) && Files.size(file) == entry.getSize();
            if (!present) {
                return false;
            }
        }
        return Files.isExecutable(target.resolve("bin/elasticsearch"));
    }

    /** Where {@code entry} goes under {@code root}: its name without the top directory. */
    private static Path unpackedPath(Path root, ZipEntry entry) throws IOException {
        String name = entry.getName();
        String prefix = topDirectory() + "/";
        if (name.equals(prefix)) {
            return root;
        }
        if (!name.startsWith(prefix)) {
            throw new IOException("unexpected entry " + name + " outside " + prefix + " in the distribution zip");
        }
        Path file = root.resolve(name.substring(prefix.length())).normalize();
        if (!file.startsWith(root)) {
            throw new IOException("entry " + name + " of the distribution zip points outside its directory");
        }
        return file;
    }

    /** Moves an incomplete tree aside first, so that no JVM starts a node from it while it is deleted. */
    private static void discard(Path target) throws IOException {
        Path aside = target.resolveSibling(target.getFileName() + ".stale-" + System.nanoTime());
        try {
            Files.move(target, aside, StandardCopyOption.ATOMIC_MOVE);
        } catch (java.nio.file.NoSuchFileException e) {
            return; // another JVM moved it aside first
        }
        deleteRecursively(aside);
    }

    static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(directory)) {
            files = walk.sorted(Comparator.reverseOrder()).toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        for (Path file : files) {
            Files.deleteIfExists(file);
        }
    }

    private static Properties loadProperties() {
        Properties properties = new Properties();
        try (InputStream in = ElasticsearchDistribution.class.getResourceAsStream("distribution.properties")) {
            if (in == null) {
                throw new IllegalStateException("distribution.properties is missing next to " + ElasticsearchDistribution.class);
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties;
    }
}
