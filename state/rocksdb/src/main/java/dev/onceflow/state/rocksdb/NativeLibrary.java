package dev.onceflow.state.rocksdb;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads RocksDB's native library without leaving a copy of it behind when the process is killed.
 *
 * <p>Unless the library is on {@code java.library.path}, {@link RocksDB#loadLibrary()} copies it
 * (about 15 MB) out of its jar into a new file in {@code java.io.tmpdir} (or
 * {@code ROCKSDB_SHAREDLIB_DIR}) on every start and deletes it only at a normal JVM exit: every
 * killed process left one copy, on many systems in a {@code /tmp} held in memory. Here the copy
 * goes into a new directory under the backend's local directory, and is deleted as soon as it is
 * loaded: on Linux (the only platform whose RocksDB jar this project ships) a loaded library stays
 * mapped after its file is gone. A copy is left only by a process killed in the fraction of a
 * second between writing and loading it; every backend opened later deletes such copies once they
 * are an hour old. A library on {@code java.library.path} and a {@code ROCKSDB_SHAREDLIB_DIR} the
 * user set are honored as by RocksDB's own loading.
 */
final class NativeLibrary {

    private static final Logger LOG = LoggerFactory.getLogger(NativeLibrary.class);
    /** Prefix of the directory each load copies the library into; a leading dot, so no job directory has it. */
    static final String COPY_PREFIX = ".native-";
    /** Age after which a copy is surely not about to be loaded by the process that wrote it. */
    private static final Duration ABANDONED_AFTER = Duration.ofHours(1);

    private static volatile boolean loaded;

    private NativeLibrary() {
    }

    /**
     * Loads the library once per JVM, copying it under {@code root}. If that fails (no room, a
     * directory mounted {@code noexec}), falls back to RocksDB's own loading, with a warning.
     *
     * <p>Call before the backend uses any other RocksDB class: many of them (and
     * {@link RocksDBKeyedStateBackend}) load the library the RocksDB way when initialized.
     */
    static synchronized void load(Path root) {
        if (Files.isDirectory(root)) {
            deleteAbandonedCopies(root);
        }
        if (loaded) {
            return;
        }
        loaded = true;
        if (System.getenv("ROCKSDB_SHAREDLIB_DIR") != null || onLibraryPath()) {
            RocksDB.loadLibrary();
            return;
        }
        String resource = Environment.getJniLibraryFileName("rocksdb");
        Path copyDirectory = null;
        try (InputStream library = RocksDB.class.getClassLoader().getResourceAsStream(resource)) {
            if (library == null) {
                throw new IOException("the RocksDB jar on the class path has no " + resource);
            }
            Files.createDirectories(root);
            copyDirectory = Files.createTempDirectory(root, COPY_PREFIX);
            // The name RocksDB.loadLibrary(paths) looks for in each path (in this version
            // "librocksdbjnijni-linux64.so": it adds "jni" to "rocksdbjni" once more).
            Files.copy(library, copyDirectory.resolve(Environment.getJniLibraryFileName("rocksdbjni")));
            RocksDB.loadLibrary(List.of(copyDirectory.toString()));
        } catch (IOException | RuntimeException | UnsatisfiedLinkError e) {
            LOG.warn("Could not load RocksDB's native library from a copy in {} ({}); loading it from {} instead,"
                    + " where a killed process leaves its copy", root, e.getMessage(),
                    System.getProperty("java.io.tmpdir"));
            RocksDB.loadLibrary();
        } finally {
            if (copyDirectory != null) {
                deleteCopy(copyDirectory);
            }
        }
    }

    /** Whether the library loads from {@code java.library.path}, as RocksDB's loading tries first. */
    private static boolean onLibraryPath() {
        String rocksdb = "rocksdb";
        for (String name : List.of(Environment.getSharedLibraryName(rocksdb), Environment.getJniLibraryName(rocksdb))) {
            try {
                System.loadLibrary(name);
                return true;
            } catch (UnsatisfiedLinkError e) {
                // not there: try the next name, then the copy
            }
        }
        return false;
    }

    private static void deleteAbandonedCopies(Path root) {
        Instant before = Instant.now().minus(ABANDONED_AFTER);
        try (DirectoryStream<Path> copies = Files.newDirectoryStream(root, COPY_PREFIX + "*")) {
            for (Path copy : copies) {
                if (Files.getLastModifiedTime(copy).toInstant().isBefore(before)) {
                    LOG.info("Deleting {}, a copy of RocksDB's native library that a killed process left", copy);
                    deleteCopy(copy);
                }
            }
        } catch (IOException e) {
            LOG.warn("Could not look for copies of RocksDB's native library in {}: {}", root, e.getMessage());
        }
    }

    private static void deleteCopy(Path copyDirectory) {
        try (var files = Files.list(copyDirectory)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
            Files.delete(copyDirectory);
        } catch (IOException e) {
            LOG.warn("Could not delete the copy of RocksDB's native library in {}: {}", copyDirectory, e.getMessage());
        }
    }
}
