package dev.onceflow.state.rocksdb;

import dev.onceflow.runtime.state.KeyedStateBackend;
import dev.onceflow.runtime.state.StateBackend;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Keyed state in an embedded RocksDB per operator subtask, on local disk: state may be larger than
 * the heap, at the price of serializing on every access (see {@link RocksDBKeyedStateBackend}).
 *
 * <p>Selected with {@code env.setStateBackend(new RocksDBStateBackend())} or by the name
 * {@code rocksdb} (system property {@value StateBackend#BACKEND_PROPERTY}). The local directory is
 * scratch space: checkpoints go to checkpoint storage as for every backend, and each attempt
 * starts from them in a new directory. It defaults to the system property {@value #DIR_PROPERTY},
 * else {@code onceflow-rocksdb} under {@code java.io.tmpdir}. A process that dies without closing
 * its backends leaves their files there; the next backend opened on the same directory, by any
 * job, deletes them (see {@link AttemptLock}). RocksDB's native library is copied there too,
 * for as long as it takes to load it (see {@link NativeLibrary}).
 *
 * <p><b>Incremental checkpoints</b> (the default; system property {@value #INCREMENTAL_PROPERTY})
 * upload only the SST files the previous completed checkpoint did not have, into the job's
 * {@code shared/} checkpoint directory; the runtime deletes a shared file once no retained
 * checkpoint lists it. Such a checkpoint restores only on this backend. Savepoints are always
 * full and portable, and so is every checkpoint with incremental checkpoints off.
 */
public final class RocksDBStateBackend implements StateBackend {

    /** System property {@value}: the local directory of the RocksDB instances. */
    public static final String DIR_PROPERTY = "onceflow.state.rocksdb.dir";
    /** System property {@value}: {@code false} turns incremental checkpoints off. */
    public static final String INCREMENTAL_PROPERTY = "onceflow.state.rocksdb.incremental";

    private static final Pattern ATTEMPT_ID = Pattern.compile("[A-Za-z0-9_-]+");

    private final Path localDirectory;
    private final boolean incremental;

    /**
     * For {@link java.util.ServiceLoader}: the directory from {@value #DIR_PROPERTY} or the temp
     * directory, incremental checkpoints unless {@value #INCREMENTAL_PROPERTY} is {@code false}.
     */
    public RocksDBStateBackend() {
        this(defaultDirectory(), !"false".equalsIgnoreCase(System.getProperty(INCREMENTAL_PROPERTY, "true").trim()));
    }

    /** Incremental checkpoints in {@code localDirectory}. */
    public RocksDBStateBackend(Path localDirectory) {
        this(localDirectory, true);
    }

    public RocksDBStateBackend(Path localDirectory, boolean incremental) {
        this.localDirectory = localDirectory;
        this.incremental = incremental;
    }

    public boolean incremental() {
        return incremental;
    }

    private static Path defaultDirectory() {
        String configured = System.getProperty(DIR_PROPERTY);
        return configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("java.io.tmpdir"), "onceflow-rocksdb");
    }

    @Override
    public String name() {
        return RocksDBKeyedStateBackend.BACKEND_NAME;
    }

    public Path localDirectory() {
        return localDirectory;
    }

    @Override
    public <K> KeyedStateBackend<K> createKeyedStateBackend(Scope scope, SimpleVersionedSerializer<K> keySerializer)
            throws IOException {
        // The attempt id becomes part of file names that AttemptLock matches: it must not nest,
        // escape, or look like another attempt's sibling (".chk-3").
        if (!ATTEMPT_ID.matcher(scope.attemptId()).matches()) {
            throw new IllegalArgumentException("an attempt id must be letters, digits, '_' and '-', not \""
                    + scope.attemptId() + "\"");
        }
        Path directory = localDirectory.resolve(safe(scope.jobName())).resolve(safe(scope.operatorUid()))
                .resolve("subtask-" + scope.subtask() + "-" + scope.attemptId());
        NativeLibrary.load(localDirectory);
        AttemptLock lock = AttemptLock.acquire(localDirectory, directory);
        try {
            return RocksDBKeyedStateBackend.open(directory, lock, keySerializer, scope.maxParallelism(),
                    scope.subtask(), scope.parallelism(), incremental);
        } catch (IOException | RuntimeException | Error e) {
            try {
                lock.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** A uid as one path segment: uids are free text, and must neither escape nor nest the directory. */
    private static String safe(String name) {
        String safe = name.replaceAll("[^A-Za-z0-9._-]", "_").replaceAll("^\\.+", "_");
        // Two uids that differ only in replaced characters still get directories of their own.
        return safe.equals(name) ? safe : safe + "-" + Integer.toHexString(name.hashCode());
    }

    @Override
    public String toString() {
        return name() + " in " + localDirectory + (incremental ? ", incremental checkpoints" : ", full checkpoints");
    }
}
