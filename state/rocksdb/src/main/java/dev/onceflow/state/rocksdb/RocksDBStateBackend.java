package dev.onceflow.state.rocksdb;

import dev.onceflow.runtime.state.KeyedStateBackend;
import dev.onceflow.runtime.state.StateBackend;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Keyed state in an embedded RocksDB per operator subtask, on local disk: state may be larger than
 * the heap, at the price of serializing on every access (see {@link RocksDBKeyedStateBackend}).
 *
 * <p>Selected with {@code env.setStateBackend(new RocksDBStateBackend())} or by the name
 * {@code rocksdb} (system property {@value StateBackend#BACKEND_PROPERTY}). The local directory is
 * scratch space: checkpoints go to checkpoint storage as for every backend, and each attempt
 * starts from them in a new directory. It defaults to the system property {@value #DIR_PROPERTY},
 * else {@code onceflow-rocksdb} under {@code java.io.tmpdir}.
 */
public final class RocksDBStateBackend implements StateBackend {

    /** System property {@value}: the local directory of the RocksDB instances. */
    public static final String DIR_PROPERTY = "onceflow.state.rocksdb.dir";

    private final Path localDirectory;

    /** For {@link java.util.ServiceLoader}: the directory from {@value #DIR_PROPERTY} or the temp directory. */
    public RocksDBStateBackend() {
        this(defaultDirectory());
    }

    public RocksDBStateBackend(Path localDirectory) {
        this.localDirectory = localDirectory;
    }

    private static Path defaultDirectory() {
        String configured = System.getProperty(DIR_PROPERTY);
        return configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("java.io.tmpdir"), "onceflow-rocksdb");
    }

    @Override
    public String name() {
        return "rocksdb";
    }

    public Path localDirectory() {
        return localDirectory;
    }

    @Override
    public <K> KeyedStateBackend<K> createKeyedStateBackend(Scope scope, SimpleVersionedSerializer<K> keySerializer)
            throws IOException {
        Path directory = localDirectory.resolve(safe(scope.jobName())).resolve(safe(scope.operatorUid()))
                .resolve("subtask-" + scope.subtask() + "-" + scope.attemptId());
        return RocksDBKeyedStateBackend.open(directory, keySerializer, scope.maxParallelism(), scope.subtask(),
                scope.parallelism());
    }

    /** A uid as one path segment: uids are free text, and must neither escape nor nest the directory. */
    private static String safe(String name) {
        String safe = name.replaceAll("[^A-Za-z0-9._-]", "_").replaceAll("^\\.+", "_");
        // Two uids that differ only in replaced characters still get directories of their own.
        return safe.equals(name) ? safe : safe + "-" + Integer.toHexString(name.hashCode());
    }

    @Override
    public String toString() {
        return name() + " in " + localDirectory;
    }
}
