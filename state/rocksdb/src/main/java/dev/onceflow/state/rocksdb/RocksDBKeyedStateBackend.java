package dev.onceflow.state.rocksdb;

import dev.onceflow.runtime.checkpoint.StoredKeyGroups;
import dev.onceflow.runtime.state.AggregateFunction;
import dev.onceflow.runtime.state.AggregatingState;
import dev.onceflow.runtime.state.KeyGroups;
import dev.onceflow.runtime.state.KeyedStateBackend;
import dev.onceflow.runtime.state.KeyedStateFormat;
import dev.onceflow.runtime.state.ListState;
import dev.onceflow.runtime.state.MapState;
import dev.onceflow.runtime.state.NativeKeyedState;
import dev.onceflow.runtime.state.ReducingState;
import dev.onceflow.runtime.state.SharedStateStore;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Checkpoint;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushJobInfo;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keyed state of one operator subtask in an embedded RocksDB on local disk.
 *
 * <p><b>Layout.</b> One entry per (key group, state, key): the RocksDB key is the key group (two
 * bytes, big-endian), the state's id (two bytes) and the key's serialized bytes; the value is the
 * value's encoding in {@link KeyedStateFormat}, versions included. Entries of one key group are
 * therefore contiguous, and within it those of one state: a snapshot reads each group with one
 * range scan. Lists and maps are one value per key, rewritten on every change; state with large
 * lists or maps per key pays for that in time, not in correctness.
 *
 * <p><b>Snapshots.</b> {@link #freeze()} takes a RocksDB snapshot, which costs the same whatever
 * the size of the state; the snapshot thread then scans it while the task writes on. The blobs
 * are those of the heap backend, so checkpoints and savepoints move between the two backends.
 *
 * <p><b>Values are copies.</b> Unlike on the heap, {@code value()} and {@code get()} return a
 * fresh deserialized object on each call, and changing it in place changes nothing stored: write
 * it back with {@code update}.
 *
 * <p><b>Crashes.</b> Writes skip RocksDB's write-ahead log: the local database is scratch space,
 * thrown away with the attempt; what survives a crash is the last completed checkpoint.
 *
 * <p>Used on the task thread only, except {@link Snapshot#serialize()}; {@link #close()} waits
 * for a running scan to stop, so the database is never closed under one (that would crash the JVM,
 * not throw).
 */
public final class RocksDBKeyedStateBackend<K> implements KeyedStateBackend<K> {

    private static final Logger LOG = LoggerFactory.getLogger(RocksDBKeyedStateBackend.class);
    private static final int PREFIX = 4;
    /** Numbers the local files full snapshots are written to, unique in the process. */
    private static final AtomicLong SPILLS = new AtomicLong();
    private static final long BLOCK_CACHE_BYTES = 64L << 20;
    private static final long WRITE_BUFFER_BYTES = 32L << 20;
    private static final long MAX_MANIFEST_BYTES = 4L << 20;
    private static final String ACTIVE_ENTRIES = "rocksdb.num-entries-active-mem-table";
    private static final String IMMUTABLE_ENTRIES = "rocksdb.num-entries-imm-mem-tables";
    /** How long the snapshot thread waits for the flush scheduled at a barrier. */
    private static final long FLUSH_TIMEOUT_NANOS = 60_000_000_000L;
    static final String BACKEND_NAME = "rocksdb";

    static {
        RocksDB.loadLibrary();
    }

    private final Path directory;
    /** Held until every local file of this attempt is deleted, so another process never takes them for abandoned. */
    private final AttemptLock lock;
    private final SimpleVersionedSerializer<K> keySerializer;
    private final int maxParallelism;
    private final int firstGroup;
    private final int endGroup;
    /** What the database was opened with, closed after it. */
    private final List<AutoCloseable> natives;
    private final WriteOptions writeOptions;
    /** Replaced once, when a restore adopts the files of a checkpoint as the database. */
    private RocksDB db;
    private final Options options;
    private final FlushProgress flushes;
    private final boolean incremental;
    /**
     * Per checkpoint of this attempt that may complete: the SST files it listed, by local name,
     * with their shared references. A later checkpoint refers to those of its base instead of
     * uploading them again.
     */
    private final Map<Long, Map<String, String>> uploads = new ConcurrentHashMap<>();
    /** Directories of native checkpoints not yet written, deleted on close. */
    private final Set<Path> staging = ConcurrentHashMap.newKeySet();
    /** State name -> id in the keys, in order of first use (registration or restore). */
    private final Map<String, Integer> ids = new LinkedHashMap<>();
    /** Snapshots taken and not yet released: released on close if never serialized. */
    private final Set<View> openViews = ConcurrentHashMap.newKeySet();
    /** Barriers of incremental checkpoints not yet captured: their RocksDB snapshots are released at close. */
    private final Set<Barrier> pinned = ConcurrentHashMap.newKeySet();
    private final ReentrantReadWriteLock closing = new ReentrantReadWriteLock();
    private volatile boolean closed;

    private K currentKey;
    private int currentGroup = -1;
    private byte[] currentKeyBytes;

    private RocksDBKeyedStateBackend(Path directory, AttemptLock lock, SimpleVersionedSerializer<K> keySerializer,
            int maxParallelism, int subtask, int parallelism, List<AutoCloseable> natives, Options options,
            WriteOptions writeOptions, FlushProgress flushes, RocksDB db, boolean incremental) {
        this.lock = lock;
        this.options = options;
        this.flushes = flushes;
        this.incremental = incremental;
        this.directory = directory;
        this.keySerializer = keySerializer;
        this.maxParallelism = maxParallelism;
        this.firstGroup = KeyGroups.firstGroup(subtask, maxParallelism, parallelism);
        this.endGroup = KeyGroups.endGroup(subtask, maxParallelism, parallelism);
        this.natives = natives;
        this.writeOptions = writeOptions;
        this.db = db;
    }

    /**
     * Opens a new, empty database in {@code directory}, deleting what an earlier run left there.
     * {@code lock} marks the directory as in use; the backend releases it on {@link #close}, the
     * caller if this throws.
     *
     * @throws IOException naming the directory if the database cannot be created
     */
    static <K> RocksDBKeyedStateBackend<K> open(Path directory, AttemptLock lock,
            SimpleVersionedSerializer<K> keySerializer, int maxParallelism, int subtask, int parallelism,
            boolean incremental) throws IOException {
        if (maxParallelism > 1 << 16) {
            throw new IllegalArgumentException("the RocksDB backend supports a max parallelism up to 65536, not "
                    + maxParallelism);
        }
        deleteRecursively(directory);
        Files.createDirectories(directory);
        BloomFilter filter = new BloomFilter(10, false);
        LRUCache cache = new LRUCache(BLOCK_CACHE_BYTES);
        FlushProgress flushes = new FlushProgress();
        Options options = options(filter, cache).setListeners(List.of(flushes));
        WriteOptions writeOptions = new WriteOptions().setDisableWAL(true);
        List<AutoCloseable> natives = List.of(writeOptions, options, flushes, cache, filter);
        try {
            RocksDB db = RocksDB.open(options, directory.toString());
            LOG.info("Keyed state of subtask {} in RocksDB at {}", subtask, directory);
            return new RocksDBKeyedStateBackend<>(directory, lock, keySerializer, maxParallelism, subtask,
                    parallelism, natives, options, writeOptions, flushes, db, incremental);
        } catch (RocksDBException e) {
            closeAll(natives);
            throw new IOException("cannot open RocksDB keyed state in " + directory + ": " + e.getMessage(), e);
        }
    }

    /**
     * Options for point reads and writes of small values: bloom filters (a read of a key a file
     * does not hold skips the file without reading a block: every first access of a key), LZ4
     * instead of Snappy, and bounded memory per database: a block cache of
     * {@value #BLOCK_CACHE_BYTES} bytes and up to three write buffers of {@value #WRITE_BUFFER_BYTES}
     * bytes. The filter and the cache are native objects of their own, closed with the database.
     */
    private static Options options(BloomFilter filter, LRUCache cache) {
        BlockBasedTableConfig table = new BlockBasedTableConfig()
                .setFilterPolicy(filter)
                .setBlockCache(cache)
                .setBlockSize(16 * 1024);
        return new Options().setCreateIfMissing(true)
                .setTableFormatConfig(table)
                .setCompressionType(CompressionType.LZ4_COMPRESSION)
                .setWriteBufferSize(WRITE_BUFFER_BYTES)
                .setMaxWriteBufferNumber(3)
                .setMaxBackgroundJobs(2)
                .setLevelCompactionDynamicLevelBytes(true)
                // The manifest goes inline into every incremental checkpoint: keep it small.
                .setMaxManifestFileSize(MAX_MANIFEST_BYTES);
    }

    @Override
    public void setCurrentKey(K key) {
        int group = KeyGroups.ownedGroupOf(key, maxParallelism, firstGroup, endGroup);
        try {
            currentKeyBytes = keySerializer.serialize(key);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialize key " + key + ": " + e.getMessage(), e);
        }
        currentKey = key;
        currentGroup = group;
    }

    @Override
    public K currentKey() {
        return currentKey;
    }

    @Override
    public <T> ValueState<T> state(StateDescriptor.Value<T> descriptor) {
        Column column = column(descriptor.name());
        SimpleVersionedSerializer<T> serializer = descriptor.serializer();
        return new ValueState<>() {
            @Override
            public T value() {
                return column.readValue(serializer);
            }

            @Override
            public void update(T value) {
                column.writeValue(serializer, value);
            }

            @Override
            public void clear() {
                column.put(null);
            }
        };
    }

    @Override
    public <T> ReducingState<T> state(StateDescriptor.Reducing<T> descriptor) {
        Column column = column(descriptor.name());
        SimpleVersionedSerializer<T> serializer = descriptor.serializer();
        return new ReducingState<>() {
            @Override
            public T get() {
                return column.readValue(serializer);
            }

            @Override
            public void add(T value) {
                T current = get();
                column.writeValue(serializer, current == null ? value : descriptor.reduce().apply(current, value));
            }

            @Override
            public void clear() {
                column.put(null);
            }
        };
    }

    @Override
    public <IN, ACC, OUT> AggregatingState<IN, OUT> state(StateDescriptor.Aggregating<IN, ACC, OUT> descriptor) {
        Column column = column(descriptor.name());
        SimpleVersionedSerializer<ACC> serializer = descriptor.accumulatorSerializer();
        AggregateFunction<IN, ACC, OUT> function = descriptor.function();
        return new AggregatingState<>() {
            private ACC accumulator() {
                return column.readValue(serializer);
            }

            @Override
            public OUT get() {
                ACC acc = accumulator();
                return acc == null ? null : function.getResult(acc);
            }

            @Override
            public void add(IN value) {
                ACC acc = accumulator();
                column.writeValue(serializer, function.add(value, acc == null ? function.createAccumulator() : acc));
            }

            @Override
            public void clear() {
                column.put(null);
            }
        };
    }

    @Override
    public <T> ListState<T> state(StateDescriptor.List<T> descriptor) {
        Column column = column(descriptor.name());
        SimpleVersionedSerializer<T> element = descriptor.elementSerializer();
        return new ListState<>() {
            private List<T> stored() {
                byte[] bytes = column.get();
                return bytes == null ? null : column.decode(() -> KeyedStateFormat.decodeList(element, bytes));
            }

            private void store(List<T> list) {
                column.put(list.isEmpty() ? null : column.encode(() -> KeyedStateFormat.encodeList(element, list)));
            }

            @Override
            public List<T> get() {
                List<T> list = stored();
                return list == null ? List.of() : Collections.unmodifiableList(list);
            }

            @Override
            public void add(T value) {
                List<T> list = stored();
                if (list == null) {
                    list = new ArrayList<>(1);
                }
                list.add(value);
                store(list);
            }

            @Override
            public void update(List<T> values) {
                store(new ArrayList<>(values));
            }

            @Override
            public void clear() {
                column.put(null);
            }
        };
    }

    @Override
    public <UK, UV> MapState<UK, UV> state(StateDescriptor.Map<UK, UV> descriptor) {
        Column column = column(descriptor.name());
        SimpleVersionedSerializer<UK> keys = descriptor.keySerializer();
        SimpleVersionedSerializer<UV> values = descriptor.valueSerializer();
        return new MapState<>() {
            private Map<UK, UV> stored() {
                byte[] bytes = column.get();
                return bytes == null ? null : column.decode(() -> KeyedStateFormat.decodeMap(keys, values, bytes));
            }

            private void store(Map<UK, UV> map) {
                column.put(map.isEmpty() ? null : column.encode(() -> KeyedStateFormat.encodeMap(keys, values, map)));
            }

            @Override
            public UV get(UK key) {
                Map<UK, UV> map = stored();
                return map == null ? null : map.get(key);
            }

            @Override
            public void put(UK key, UV value) {
                Map<UK, UV> map = stored();
                if (map == null) {
                    map = new HashMap<>();
                }
                map.put(key, value);
                store(map);
            }

            @Override
            public void remove(UK key) {
                Map<UK, UV> map = stored();
                if (map != null && map.containsKey(key)) {
                    map.remove(key);
                    store(map);
                }
            }

            @Override
            public boolean contains(UK key) {
                Map<UK, UV> map = stored();
                return map != null && map.containsKey(key);
            }

            @Override
            public Map<UK, UV> entries() {
                Map<UK, UV> map = stored();
                return map == null ? Map.of() : Collections.unmodifiableMap(map);
            }

            @Override
            public void clear() {
                column.put(null);
            }
        };
    }

    @Override
    public void forEachKey(String name, Consumer<K> action) {
        Integer id = ids.get(name);
        if (id == null) {
            throw new IllegalStateException("keyed state '" + name + "' is not registered");
        }
        List<K> keys = new ArrayList<>();
        try (ReadOptions read = new ReadOptions(); RocksIterator it = db.newIterator(read)) {
            for (int group = firstGroup; group < endGroup; group++) {
                byte[] prefix = prefix(group, id);
                for (it.seek(prefix); it.isValid() && startsWith(it.key(), prefix); it.next()) {
                    byte[] key = it.key();
                    keys.add(keySerializer.deserialize(keySerializer.version(), Arrays.copyOfRange(key, PREFIX, key.length)));
                }
            }
            it.status();
        } catch (RocksDBException | IOException e) {
            throw new IllegalStateException("cannot list the keys of keyed state '" + name + "': " + e.getMessage(), e);
        }
        keys.forEach(action);
    }

    @Override
    public Snapshot freeze() {
        checkOpen();
        View view = new View(db.getSnapshot(), new ArrayList<>(ids.keySet()));
        openViews.add(view);
        return view;
    }

    @Override
    public void restore(Map<Integer, byte[]> keyGroups) throws IOException {
        checkOpen();
        if (!ids.isEmpty()) {
            throw new IllegalStateException("restore must come before any state is registered");
        }
        // One group's blob at a time, and only the owned ones: a restored checkpoint reads each
        // from its file when asked (StoredKeyGroups), so state larger than the heap restores.
        for (int group : new java.util.TreeSet<>(keyGroups.keySet())) {
            if (group < firstGroup || group >= endGroup) {
                continue;
            }
            try (WriteBatch batch = new WriteBatch()) {
                KeyedStateFormat.readGroup(keyGroups.get(group), (name, keyVersion, key, value) -> {
                    // Keys are stored with the current serializer version (rule SER-2): they are
                    // compared as bytes, so one key must have one encoding.
                    byte[] current = keyVersion == keySerializer.version() ? key
                            : keySerializer.serialize(keySerializer.deserialize(keyVersion, key));
                    try {
                        batch.put(rocksKey(group, id(name), current), value);
                    } catch (RocksDBException e) {
                        throw new IOException(e.getMessage(), e);
                    }
                });
                db.write(writeOptions, batch);
            } catch (RocksDBException e) {
                throw new IOException("cannot restore key group " + group + " into " + directory + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * For a checkpoint (not a savepoint) of an incremental backend. The synchronous part, on the
     * task thread, pins the barrier: a RocksDB snapshot holds its sequence number, and the write
     * buffers become immutable with their flush scheduled, not awaited (that wait, 40-90 ms, was
     * most of the task thread's stall). The snapshot thread then waits for the flush, captures the
     * live files, checks that they hold exactly the writes up to the barrier, and uploads the SST
     * files its base checkpoint did not list (see {@link #capture}); if they do not, it writes the
     * checkpoint in full from the barrier's snapshot. If the write buffer cannot be
     * switched, RocksDB's own checkpoint (flush awaited) is taken on the task thread instead.
     */
    @Override
    public Snapshot freeze(SnapshotOptions request) {
        if (!incremental || request.savepoint() || request.shared() == null) {
            return freeze();
        }
        checkOpen();
        long id = request.checkpointId();
        Path dir = directory.resolveSibling(directory.getFileName() + ".chk-" + id);
        Barrier barrier;
        try {
            deleteRecursively(dir);
            staging.add(dir);
            releaseAbandoned(request.lastCompletedCheckpointId());
            barrier = switchWriteBuffers(id);
            if (barrier == null) {
                try (Checkpoint checkpoint = Checkpoint.create(db)) {
                    checkpoint.createCheckpoint(dir.toString());
                }
            }
        } catch (IOException | RocksDBException e) {
            throw new IllegalStateException("cannot take a RocksDB checkpoint of " + directory + " in " + dir + ": "
                    + e.getMessage(), e);
        }
        // Only the base can still be referred to: older checkpoints are complete, subsumed or aborted.
        long base = request.lastCompletedCheckpointId();
        uploads.keySet().removeIf(older -> older < base);
        return new NativeView(id, dir, barrier, uploads.getOrDefault(base, Map.of()), new ArrayList<>(ids.keySet()),
                request.shared());
    }

    /**
     * Pins the current sequence number with a RocksDB snapshot (so compactions keep what it sees
     * and the sequence numbers of later writes) and makes the write buffers immutable, scheduling
     * their flush without waiting for it. Returns null, having released the snapshot, if the
     * active write buffer still holds entries afterwards (RocksDB did not switch it).
     */
    private Barrier switchWriteBuffers(long checkpointId) throws RocksDBException {
        boolean buffered = db.getLongProperty(ACTIVE_ENTRIES) + db.getLongProperty(IMMUTABLE_ENTRIES) > 0;
        org.rocksdb.Snapshot snapshot = db.getSnapshot();
        boolean switched = false;
        try (FlushOptions noWait = new FlushOptions().setWaitForFlush(false).setAllowWriteStall(true)) {
            db.flush(noWait);
            switched = db.getLongProperty(ACTIVE_ENTRIES) == 0;
        } finally {
            if (!switched) {
                db.releaseSnapshot(snapshot);
            }
        }
        if (!switched) {
            LOG.warn("RocksDB did not switch the write buffer of {}; the checkpoint waits for its flush on the task thread",
                    directory);
            return null;
        }
        Barrier barrier = new Barrier(checkpointId, snapshot, snapshot.getSequenceNumber(), buffered,
                new AtomicBoolean());
        pinned.add(barrier);
        return barrier;
    }

    /**
     * The sequence number of a checkpoint's barrier, pinned by a RocksDB snapshot until the
     * checkpoint's files are captured.
     *
     * @param buffered whether write buffers held entries at the barrier: then the newest of them,
     *     numbered {@code sequence}, must be in an SST file before the files are captured
     */
    private record Barrier(long checkpointId, org.rocksdb.Snapshot snapshot, long sequence, boolean buffered,
            AtomicBoolean claimed) {

        /** Whether the caller may use, then release, the snapshot: once, by the capture or by a later barrier. */
        boolean claim() {
            return claimed.compareAndSet(false, true);
        }
    }

    /**
     * Releases the snapshots of barriers whose checkpoint can no longer complete (older than the
     * last completed one) and whose capture never started: a checkpoint aborted before its
     * snapshot was written. Held on, they would keep compactions from dropping old versions for
     * the rest of the attempt. Task thread.
     */
    private void releaseAbandoned(long lastCompletedCheckpointId) {
        for (Barrier barrier : pinned) {
            if (barrier.checkpointId() < lastCompletedCheckpointId && barrier.claim()) {
                release(barrier);
            }
        }
    }

    /** Releases a barrier's snapshot once; after close it is gone with the database. */
    private void release(Barrier barrier) {
        if (pinned.remove(barrier)) {
            db.releaseSnapshot(barrier.snapshot());
        }
    }

    /**
     * On the snapshot thread, with the database open: stages in {@code dir} the database as of
     * {@code barrier}. Waits until the flush scheduled at the barrier has put its newest write
     * into an SST file, then, with file deletions disabled, lists the live files and links (SST)
     * or copies (the manifest, up to its length at the listing, and the options) them, and writes
     * CURRENT. The capture is checked against the barrier: every SST file must hold only writes
     * up to it. If a write buffer of later writes was flushed before the capture (a snapshot
     * thread busy with other tasks' uploads, or a later checkpoint's barrier, can let that
     * happen), it throws {@link NotAtBarrier}, and the checkpoint is written in full from the
     * barrier's snapshot: never with later writes.
     */
    private void capture(Barrier barrier, Path dir, long checkpointId) throws IOException {
        try {
            long deadline = System.nanoTime() + FLUSH_TIMEOUT_NANOS;
            while (barrier.buffered() && flushes.flushedThrough() < barrier.sequence()) {
                Snapshot.stopIfInterrupted();
                if (closed) {
                    throw new IOException("the RocksDB keyed state in " + directory + " was closed before checkpoint "
                            + checkpointId + " was captured");
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new NotAtBarrier("the write buffers of " + directory + " were not flushed within "
                            + FLUSH_TIMEOUT_NANOS / 1_000_000_000 + " s of checkpoint " + checkpointId + "'s barrier");
                }
                Thread.sleep(1);
            }
            db.disableFileDeletions();
            try {
                Map<String, LiveFileMetaData> sst = new HashMap<>();
                db.getLiveFilesMetaData().forEach(file -> sst.put(bareName(file.fileName()), file));
                RocksDB.LiveFiles live = db.getLiveFiles(false);
                db.getLiveFilesMetaData().forEach(file -> sst.put(bareName(file.fileName()), file));
                stage(live, sst, barrier, dir, checkpointId);
            } finally {
                db.enableFileDeletions();
            }
        } catch (RocksDBException e) {
            throw new IOException("cannot capture RocksDB checkpoint " + checkpointId + " of " + directory + ": "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("the snapshot was stopped: its job attempt ended");
        }
    }

    private void stage(RocksDB.LiveFiles live, Map<String, LiveFileMetaData> sst, Barrier barrier, Path dir,
            long checkpointId) throws IOException {
        Files.createDirectories(dir);
        String manifest = null;
        for (String file : live.files) {
            String name = bareName(file);
            Path source = directory.resolve(name);
            Path target = dir.resolve(name);
            if (name.endsWith(".sst")) {
                LiveFileMetaData meta = sst.get(name);
                if (meta == null || meta.largestSeqno() > barrier.sequence()) {
                    throw new NotAtBarrier("SST file " + name + (meta == null ? " could not be checked against the barrier"
                            : " holds writes made after the barrier (" + meta.largestSeqno() + " > "
                            + barrier.sequence() + "), flushed before the files were captured"));
                }
                Files.createLink(target, source);
            } else if (name.startsWith("MANIFEST-")) {
                manifest = name;
                copyPrefix(source, target, live.manifestFileSize);
            } else if (!name.equals("CURRENT")) {
                Files.copy(source, target);
            }
        }
        if (manifest == null) {
            throw new NotAtBarrier("RocksDB listed no manifest among the live files " + live.files);
        }
        Files.writeString(dir.resolve("CURRENT"), manifest + "\n");
    }

    /**
     * The newest write that a completed memtable flush has put into an SST file. RocksDB installs
     * flushes in the order of their memtables and calls this listener after installing one, so
     * every write up to that number is then in the live files (a compaction may later renumber
     * it to 0 at the last level, which is why the live files' numbers cannot tell).
     */
    static final class FlushProgress extends AbstractEventListener {
        private final AtomicLong flushedThrough = new AtomicLong(-1);

        FlushProgress() {
            super(EnabledEventCallback.ON_FLUSH_COMPLETED);
        }

        @Override
        public void onFlushCompleted(RocksDB db, FlushJobInfo flush) {
            flushedThrough.accumulateAndGet(flush.getLargestSeqno(), Math::max);
        }

        long flushedThrough() {
            return flushedThrough.get();
        }

        /** A new database (restored from files) starts its own numbering. */
        void reset() {
            flushedThrough.set(-1);
        }
    }

    /** The number of RocksDB snapshots held now: for tests of their release. */
    long snapshotsHeld() throws RocksDBException {
        return db.getLongProperty("rocksdb.num-snapshots");
    }

    /** Flushes the write buffers and waits: for tests that need writes in SST files at a given point. */
    void flushWriteBuffers() throws RocksDBException {
        try (FlushOptions wait = new FlushOptions().setWaitForFlush(true)) {
            db.flush(wait);
        }
    }

    /**
     * The live files cannot be shown to be the state at the barrier; the barrier's RocksDB
     * snapshot still can, and the checkpoint is written in full from it instead.
     */
    private static final class NotAtBarrier extends IOException {
        NotAtBarrier(String message) {
            super(message);
        }
    }

    /** RocksDB names live files with a leading slash ("/000012.sst"). */
    private static String bareName(String file) {
        return file.startsWith("/") ? file.substring(1) : file;
    }

    /** Copies the first {@code length} bytes of {@code source}: a manifest grows after it is listed. */
    private static void copyPrefix(Path source, Path target, long length) throws IOException {
        try (FileChannel in = FileChannel.open(source, StandardOpenOption.READ);
                FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long position = 0;
            while (position < length) {
                long copied = in.transferTo(position, length - position, out);
                if (copied <= 0) {
                    throw new IOException("the RocksDB manifest " + source + " is shorter than its listed length "
                            + length);
                }
                position += copied;
            }
        }
    }

    @Override
    public void restore(Map<Integer, byte[]> keyGroups, List<NativeKeyedState> natives, SharedStateStore shared)
            throws IOException {
        List<NativeKeyedState> mine = natives.stream().filter(n -> n.overlaps(firstGroup, endGroup)).toList();
        for (NativeKeyedState state : mine) {
            if (!state.backend().equals(BACKEND_NAME)) {
                throw new IllegalStateException("the checkpoint holds keyed state of the '" + state.backend()
                        + "' backend, which the RocksDB backend cannot read");
            }
        }
        restore(keyGroups);
        if (mine.isEmpty()) {
            return;
        }
        List<NativeHandle> handles = new ArrayList<>();
        for (NativeKeyedState state : mine) {
            handles.add(NativeHandle.parse(state));
        }
        NativeHandle only = handles.get(0);
        // Key groups of other subtasks (a former subtask's checkpoint written in full) do not matter.
        boolean ownsNoKeyGroup = keyGroups.keySet().stream().noneMatch(g -> g >= firstGroup && g < endGroup);
        if (handles.size() == 1 && ownsNoKeyGroup && ids.isEmpty() && only.firstGroup() == firstGroup
                && only.endGroup() == endGroup && only.keySerializerVersion() == keySerializer.version()) {
            adopt(only, shared);
        } else {
            for (int i = 0; i < handles.size(); i++) {
                copyOwnedGroups(handles.get(i), shared, directory.resolveSibling(directory.getFileName() + ".restore-" + i));
            }
        }
    }

    /** Same subtask range as before: the checkpoint's files become the database, nothing is rewritten. */
    private void adopt(NativeHandle handle, SharedStateStore shared) throws IOException {
        db.close();
        deleteRecursively(directory);
        handle.download(shared, directory);
        try {
            db = RocksDB.open(options, directory.toString());
        } catch (RocksDBException e) {
            throw new IOException("cannot open the restored RocksDB keyed state in " + directory + ": " + e.getMessage(), e);
        }
        flushes.reset();
        for (String name : handle.stateNames()) {
            id(name);
        }
    }

    /**
     * Another range (rescaling) or another key encoding: opens the former subtask's database
     * read-only in a scratch directory and copies the entries of the key groups this subtask owns.
     */
    private void copyOwnedGroups(NativeHandle handle, SharedStateStore shared, Path scratch) throws IOException {
        deleteRecursively(scratch);
        handle.download(shared, scratch);
        int from = Math.max(firstGroup, handle.firstGroup());
        int to = Math.min(endGroup, handle.endGroup());
        List<String> names = handle.stateNames();
        try (Options readOnly = new Options(); RocksDB former = RocksDB.openReadOnly(readOnly, scratch.toString());
                ReadOptions read = new ReadOptions(); RocksIterator it = former.newIterator(read)) {
            WriteBatch batch = new WriteBatch();
            try {
                for (it.seek(new byte[] {(byte) (from >>> 8), (byte) from}); it.isValid(); it.next()) {
                    byte[] key = it.key();
                    int group = ((key[0] & 0xff) << 8) | (key[1] & 0xff);
                    if (group >= to) {
                        break;
                    }
                    int stateId = ((key[2] & 0xff) << 8) | (key[3] & 0xff);
                    if (stateId >= names.size()) {
                        throw new IOException("an entry of keyed state id " + stateId + " is not among the checkpoint's "
                                + names.size() + " states");
                    }
                    byte[] keyBytes = Arrays.copyOfRange(key, PREFIX, key.length);
                    if (handle.keySerializerVersion() != keySerializer.version()) {
                        keyBytes = keySerializer.serialize(keySerializer.deserialize(handle.keySerializerVersion(), keyBytes));
                    }
                    batch.put(rocksKey(group, id(names.get(stateId)), keyBytes), it.value());
                    if (batch.getDataSize() > 4 << 20) {
                        db.write(writeOptions, batch);
                        batch.close();
                        batch = new WriteBatch();
                    }
                }
                it.status();
                db.write(writeOptions, batch);
            } finally {
                batch.close();
            }
        } catch (RocksDBException e) {
            throw new IOException("cannot restore key groups " + from + ".." + (to - 1) + " from a checkpoint: "
                    + e.getMessage(), e);
        } finally {
            deleteRecursively(scratch);
        }
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        closing.writeLock().lock();
        try {
            for (View view : openViews) {
                view.release();
            }
            openViews.clear();
            for (Barrier barrier : pinned) {
                release(barrier);
            }
            db.close();
            closeAll(natives);
        } finally {
            closing.writeLock().unlock();
        }
        deleteRecursively(directory);
        for (Path dir : staging) {
            deleteRecursively(dir);
        }
        // Only once the files are gone: if deleting failed, the lock stays held until the process
        // ends, and the next process deletes what is left.
        lock.close();
    }

    private static void closeAll(List<AutoCloseable> natives) {
        for (AutoCloseable object : natives) {
            try {
                object.close();
            } catch (Exception e) {
                throw new IllegalStateException("cannot release a RocksDB object: " + e.getMessage(), e);
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the RocksDB keyed state in " + directory + " is closed");
        }
    }

    private int id(String name) {
        Integer id = ids.get(name);
        if (id == null) {
            if (ids.size() >= 1 << 16) {
                throw new IllegalStateException("more than 65536 keyed states in one operator");
            }
            id = ids.size();
            ids.put(name, id);
        }
        return id;
    }

    private Column column(String name) {
        checkOpen();
        return new Column(name, id(name));
    }

    private static byte[] prefix(int group, int id) {
        return new byte[] {(byte) (group >>> 8), (byte) group, (byte) (id >>> 8), (byte) id};
    }

    private static byte[] rocksKey(int group, int id, byte[] key) {
        byte[] bytes = new byte[PREFIX + key.length];
        bytes[0] = (byte) (group >>> 8);
        bytes[1] = (byte) group;
        bytes[2] = (byte) (id >>> 8);
        bytes[3] = (byte) id;
        System.arraycopy(key, 0, bytes, PREFIX, key.length);
        return bytes;
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    private static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    /** Serialization that may fail, in a state accessor whose interface does not throw. */
    private interface Coding<T> {
        T run() throws IOException;
    }

    /** One registered state, read and written under the current key. */
    private final class Column {
        private final String name;
        private final int id;

        Column(String name, int id) {
            this.name = name;
            this.id = id;
        }

        private byte[] key() {
            if (currentGroup < 0) {
                throw new IllegalStateException("keyed state '" + name + "' used outside of a keyed context");
            }
            return rocksKey(currentGroup, id, currentKeyBytes);
        }

        byte[] get() {
            try {
                return db.get(key());
            } catch (RocksDBException e) {
                throw new IllegalStateException("cannot read keyed state '" + name + "' from " + directory + ": "
                        + e.getMessage(), e);
            }
        }

        /** Stores {@code encoded}, or removes the current key's value if it is {@code null}. */
        void put(byte[] encoded) {
            try {
                if (encoded == null) {
                    db.delete(writeOptions, key());
                } else {
                    db.put(writeOptions, key(), encoded);
                }
            } catch (RocksDBException e) {
                throw new IllegalStateException("cannot write keyed state '" + name + "' to " + directory + ": "
                        + e.getMessage(), e);
            }
        }

        /** The current key's single value (value, reducing, aggregating state), or null. */
        <T> T readValue(SimpleVersionedSerializer<T> serializer) {
            byte[] bytes = get();
            return bytes == null ? null : decode(() -> KeyedStateFormat.decodeValue(serializer, bytes));
        }

        /** Stores the current key's single value; null removes it. */
        <T> void writeValue(SimpleVersionedSerializer<T> serializer, T value) {
            put(value == null ? null : encode(() -> KeyedStateFormat.encodeValue(serializer, value)));
        }

        <T> T decode(Coding<T> coding) {
            try {
                return coding.run();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read a value of keyed state '" + name + "': " + e.getMessage(), e);
            }
        }

        byte[] encode(Coding<byte[]> coding) {
            try {
                return coding.run();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write a value of keyed state '" + name + "': " + e.getMessage(), e);
            }
        }
    }

    /** A RocksDB snapshot and the state names it may hold, scanned once by the snapshot thread. */
    private final class View implements Snapshot {
        private final org.rocksdb.Snapshot snapshot;
        private final List<String> names;
        private boolean released;

        View(org.rocksdb.Snapshot snapshot, List<String> names) {
            this.snapshot = snapshot;
            this.names = names;
        }

        @Override
        public SortedMap<Integer, byte[]> serialize() throws IOException {
            closing.readLock().lock();
            try {
                if (closed) {
                    throw new IOException("the RocksDB keyed state in " + directory + " was closed before its snapshot was written");
                }
                return scan();
            } finally {
                release();
                closing.readLock().unlock();
            }
        }

        /**
         * Scans the snapshot group by group into a local file next to the database, so a full
         * snapshot holds one group on the heap at a time, never the whole state; the task state
         * file is written from it and the file deleted then (or when the backend closes).
         */
        private SortedMap<Integer, byte[]> scan() throws IOException {
            Path spill = directory.resolveSibling(directory.getFileName() + ".snapshot-" + SPILLS.incrementAndGet());
            staging.add(spill);
            StoredKeyGroups.Builder result = StoredKeyGroups.builder().onClose(() -> {
                try {
                    Files.deleteIfExists(spill);
                } catch (IOException e) {
                    LOG.warn("Could not delete the snapshot file {}: {}", spill, e.getMessage());
                }
                staging.remove(spill);
            });
            boolean written = false;
            try {
                try (OutputStream file = new BufferedOutputStream(Files.newOutputStream(spill), 1 << 16)) {
                    scanInto(file, result, spill);
                }
                written = true; // only once the file is flushed and closed (a full disk fails there)
            } finally {
                if (!written) {
                    result.build().close();
                }
            }
            StoredKeyGroups groups = result.build();
            if (groups.isEmpty()) {
                groups.close();
                return new TreeMap<>();
            }
            return groups;
        }

        private void scanInto(OutputStream file, StoredKeyGroups.Builder result, Path spill) throws IOException {
            long offset = 0;
            ByteArrayOutputStream group = new ByteArrayOutputStream(1 << 16);
            ByteArrayOutputStream entries = new ByteArrayOutputStream(1 << 16);
            DataOutputStream groupOut = new DataOutputStream(group);
            DataOutputStream entriesOut = new DataOutputStream(entries);
            try (ReadOptions read = new ReadOptions().setSnapshot(snapshot); RocksIterator it = db.newIterator(read)) {
                for (int g = firstGroup; g < endGroup; g++) {
                    Snapshot.stopIfInterrupted();
                    if (closed) {
                        throw new IOException("the RocksDB keyed state in " + directory + " was closed while its snapshot was written");
                    }
                    byte[] groupPrefix = {(byte) (g >>> 8), (byte) g};
                    // Entries come sorted by state id: one state's entries are written, and counted,
                    // before the next one's begin.
                    List<byte[]> states = new ArrayList<>();
                    int id = -1;
                    int count = 0;
                    entries.reset();
                    for (it.seek(groupPrefix); it.isValid() && startsWith(it.key(), groupPrefix); it.next()) {
                        byte[] key = it.key();
                        int keyId = ((key[2] & 0xff) << 8) | (key[3] & 0xff);
                        if (keyId != id) {
                            if (id >= 0) {
                                states.add(state(id, count, entriesOut, entries));
                            }
                            id = keyId;
                            count = 0;
                            entries.reset();
                        }
                        KeyedStateFormat.writeBytes(entriesOut, Arrays.copyOfRange(key, PREFIX, key.length));
                        KeyedStateFormat.writeBytes(entriesOut, it.value());
                        count++;
                    }
                    it.status();
                    if (id < 0) {
                        continue;
                    }
                    states.add(state(id, count, entriesOut, entries));
                    group.reset();
                    KeyedStateFormat.writeGroupHeader(groupOut, keySerializer.version(), states.size());
                    for (byte[] state : states) {
                        groupOut.write(state);
                    }
                    groupOut.flush();
                    group.writeTo(file);
                    result.putRange(g, spill, offset, group.size());
                    offset += group.size();
                }
            } catch (RocksDBException e) {
                throw new IOException("cannot read the snapshot of " + directory + ": " + e.getMessage(), e);
            }
        }

        /** One state's part of a group blob: its header, then the entries buffered so far. */
        private byte[] state(int id, int count, DataOutputStream entriesOut, ByteArrayOutputStream entries)
                throws IOException {
            if (id >= names.size()) {
                throw new IOException("keyed state id " + id + " is not in the snapshot's " + names.size() + " states");
            }
            entriesOut.flush();
            ByteArrayOutputStream state = new ByteArrayOutputStream(entries.size() + 64);
            DataOutputStream out = new DataOutputStream(state);
            KeyedStateFormat.writeStateHeader(out, names.get(id), count);
            entries.writeTo(out);
            out.flush();
            return state.toByteArray();
        }

        /** Releases the RocksDB snapshot once; after close it is gone with the database. */
        synchronized void release() {
            if (!released) {
                released = true;
                openViews.remove(this);
                db.releaseSnapshot(snapshot);
            }
        }
    }

    /** A staged RocksDB checkpoint, uploaded by the snapshot thread. */
    private final class NativeView implements Snapshot {
        private final long checkpointId;
        private final Path dir;
        /** The barrier to capture on the snapshot thread, or null if {@code dir} already holds the checkpoint. */
        private final Barrier barrier;
        private final Map<String, String> base;
        private final List<String> names;
        private final SharedStateStore shared;

        NativeView(long checkpointId, Path dir, Barrier barrier, Map<String, String> base, List<String> names,
                SharedStateStore shared) {
            this.checkpointId = checkpointId;
            this.dir = dir;
            this.barrier = barrier;
            this.base = base;
            this.names = names;
            this.shared = shared;
        }

        @Override
        public SortedMap<Integer, byte[]> serialize() {
            throw new UnsupportedOperationException("an incremental RocksDB snapshot is written with write()");
        }

        @Override
        public Result write() throws IOException {
            closing.readLock().lock();
            try {
                if (closed) {
                    throw new IOException("the RocksDB keyed state in " + directory + " was closed before checkpoint "
                            + checkpointId + " was written");
                }
                if (barrier != null) {
                    if (!barrier.claim()) {
                        throw new IOException("checkpoint " + checkpointId + " of " + directory
                                + " was abandoned before its snapshot was written");
                    }
                    try {
                        capture(barrier, dir, checkpointId);
                    } catch (NotAtBarrier e) {
                        LOG.warn("Checkpoint {} of {} is written in full, not incrementally: {}", checkpointId,
                                directory, e.getMessage());
                        return new Result(new View(barrier.snapshot(), names).scan(), null);
                    } finally {
                        release(barrier);
                    }
                }
                Map<String, String> listed = new LinkedHashMap<>();
                long[] uploadedAndShared = new long[2];
                NativeHandle handle = NativeHandle.stage(dir, keySerializer.version(), firstGroup, endGroup, names,
                        file -> {
                            Snapshot.stopIfInterrupted();
                            String name = file.getFileName().toString();
                            String reference = base.get(name);
                            long size = Files.size(file);
                            if (reference == null) {
                                reference = shared.upload(checkpointId, file);
                                uploadedAndShared[0] += size;
                            }
                            uploadedAndShared[1] += size;
                            listed.put(name, reference);
                            return reference;
                        });
                uploads.put(checkpointId, listed);
                return new Result(new TreeMap<>(), new NativeKeyedState(BACKEND_NAME, firstGroup, endGroup,
                        handle.encode(), List.copyOf(listed.values()), uploadedAndShared[0], uploadedAndShared[1]));
            } finally {
                try {
                    deleteRecursively(dir);
                } finally {
                    staging.remove(dir);
                    closing.readLock().unlock();
                }
            }
        }
    }
}
