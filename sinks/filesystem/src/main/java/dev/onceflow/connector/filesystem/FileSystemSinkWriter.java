package dev.onceflow.connector.filesystem;

import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.sink.PreCommitted;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LeaseRecoverable;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.server.namenode.SafeModeException;
import org.apache.hadoop.ipc.RemoteException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the part files of one checkpoint and subtask (one, or more when the rolling policy closes
 * files early), and commits each by renaming it from its hidden in-progress name to its final name.
 *
 * <p>Why this is exactly-once: a part file becomes visible only by the rename in {@link #commit},
 * which happens after its checkpoint completed; pre-commit makes the bytes durable and records
 * their number in the handle, so a later process can finish the commit from the handle alone and
 * can tell a finished commit (final file present) from lost data (neither file present).
 *
 * <p>Pre-commit is asynchronous: the task thread ends the part file's encoding, so its length is
 * final and goes into the handle, and a sync thread of this writer {@code hsync}s and closes it
 * while the task thread writes the next checkpoint's records. Waiting for the data node to force
 * the data to disk on the task thread cost 10-30 % of the throughput at 1 s checkpoints on HDFS,
 * depending on the machine (docs/performance.md).
 */
final class FileSystemSinkWriter<T> implements TransactionalWriter<T, FileTransaction> {

    private static final Logger LOG = LoggerFactory.getLogger(FileSystemSinkWriter.class);
    /** What the name node throws for changes while in safe mode; remote, so matched by class name. */
    private static final String SAFE_MODE_EXCEPTION = SafeModeException.class.getName();

    /** Pause between polls of the HDFS block or lease recovery that truncate and commit may wait for. */
    private static final long RECOVERY_POLL_MILLIS = 100;
    /**
     * How long lease recovery waits for the name node's recovery before asking for it again. The
     * name node ignores a request while a block recovery is pending; one that failed or timed out
     * (a data node unreachable) starts again only when asked. Between requests it polls
     * {@code isFileClosed}.
     */
    private static final long LEASE_RECOVERY_RETRY_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final SinkContext context;
    private final FileSystem fs;
    /** Whether {@link #close()} closes {@link #fs}: a client of its own, not Hadoop's shared local one. */
    private final boolean ownsFileSystem;
    private final Path directory;
    /** {@link #directory} as handles record it. */
    private final String directoryName;
    private final PartFileNames names;
    private final RollingPolicy rollingPolicy;
    /** Whether {@link #rollingPolicy} needs asking per record: by default files roll only at barriers. */
    private final boolean rollsWithinCheckpoint;
    private final Compression compression;
    private final Duration recoveryTimeout;
    private final LineFormat<T> lineFormat;
    /** Whether part files are whole files of the format (Parquet), finished at every pre-commit (FMT-5). */
    private final boolean wholeFiles;
    /** The line encoder; null for a whole-file format. */
    private final Function<T, byte[]> encoder;
    private final boolean checkLineBreaks;
    /** Transactions begun and not yet pre-committed or aborted, by {@link FileTransaction#key()}. */
    private final Map<String, OpenTransaction> open = new HashMap<>();
    /** The handle {@link #write} was last given, and its transaction: a map lookup per record costs ~10%. */
    private FileTransaction lastHandle;
    private OpenTransaction lastTransaction;
    /**
     * Makes finished part files durable and closes them, in the order they were finished. One
     * thread: the only object it shares with the task thread is the file system client, which is
     * thread-safe.
     */
    private final ExecutorService syncThread;

    FileSystemSinkWriter(SinkContext context, FileSystem fs, boolean ownsFileSystem, Path directory,
            PartFileNames names, RollingPolicy rollingPolicy, Compression compression, Duration recoveryTimeout,
            LineFormat<T> lineFormat) {
        this.context = context;
        this.fs = fs;
        this.ownsFileSystem = ownsFileSystem;
        this.directory = directory;
        this.directoryName = directory.toString();
        this.names = names;
        this.rollingPolicy = rollingPolicy;
        this.rollsWithinCheckpoint = rollingPolicy.rollsWithinCheckpoint();
        this.compression = compression;
        this.recoveryTimeout = recoveryTimeout;
        this.lineFormat = lineFormat;
        this.wholeFiles = lineFormat.writesWholeFiles();
        this.encoder = lineFormat.newEncoder();
        this.checkLineBreaks = lineFormat.mustCheckLineBreaks();
        this.syncThread = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "onceflow-filesystem-sync-" + context.subtaskIndex());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Only names the first file: files are created on the first write, so empty checkpoints leave none. */
    @Override
    public FileTransaction beginTransaction(long checkpointId) {
        OpenTransaction transaction = new OpenTransaction(checkpointId);
        PartFile first = transaction.partName(0);
        open.put(first.inProgressPath(), transaction);
        return new FileTransaction(directoryName, List.of(first));
    }

    /** The record's line, refused if it holds a line break its format does not mark: it would read back as two. */
    private byte[] line(T record) throws IOException {
        byte[] bytes = encoder.apply(record);
        if (checkLineBreaks) {
            for (byte b : bytes) {
                if (b == '\n' || b == '\r') {
                    throw new IOException("a record in format '" + lineFormat.name() + "' holds a line break, which a part"
                            + " file of one record per line cannot hold; it would read back as two records");
                }
            }
        }
        return bytes;
    }

    @Override
    public void write(FileTransaction transaction, T record) throws IOException {
        OpenTransaction txn = transaction == lastHandle ? lastTransaction : openTransaction(transaction);
        if (rollsWithinCheckpoint && txn.current != null && rollingPolicy.shouldRoll(txn.current)) {
            txn.finishCurrent();
        }
        if (txn.current == null) {
            PartFile part = txn.partName(txn.closed.size());
            // Never overwrite: names are unique per attempt, so an existing file is a bug to surface.
            FSDataOutputStream file = fs.create(new Path(part.inProgressPath()), false);
            txn.current = wholeFiles ? new PartFileStream(part, file, lineFormat::newFileWriter, System.nanoTime())
                    : new PartFileStream(part, file, compression, lineFormat.header(), System.nanoTime());
        }
        if (wholeFiles) {
            // Only LineFormat.rows makes a whole-file format, so the records are rows.
            txn.current.write((Row) record);
        } else {
            txn.current.write(line(record));
        }
    }

    private OpenTransaction openTransaction(FileTransaction transaction) {
        OpenTransaction txn = open.get(transaction.key());
        if (txn == null) {
            throw new IllegalStateException("transaction " + transaction.key() + " is not open in this writer");
        }
        lastHandle = transaction;
        lastTransaction = txn;
        return txn;
    }

    /** Waits for {@link #preCommitAsync}'s stage; the runtime calls preCommitAsync itself. */
    @Override
    public FileTransaction preCommit(FileTransaction transaction) throws Exception {
        return preCommitAsync(transaction).awaitDurable();
    }

    /**
     * 2PC-2 once the stage completes: the handle lists every part file with its final length at
     * once, and the sync thread makes them durable.
     */
    @Override
    public PreCommitted<FileTransaction> preCommitAsync(FileTransaction transaction) throws IOException {
        OpenTransaction txn = openTransaction(transaction);
        open.remove(transaction.key());
        forget();
        if (txn.current != null) {
            txn.finishCurrent();
        }
        if (txn.closed.isEmpty()) {
            return PreCommitted.durable(transaction); // nothing written: the planned first part, length 0, no file
        }
        return new PreCommitted<>(new FileTransaction(directoryName, txn.closed),
                CompletableFuture.allOf(txn.syncs.toArray(CompletableFuture[]::new)));
    }

    @Override
    public void commit(FileTransaction transaction) throws IOException {
        commitPreCommitted(transaction);
    }

    @Override
    public void recoverAndCommit(FileTransaction transaction) throws IOException {
        commitPreCommitted(transaction);
    }

    /**
     * 2PC-3, 2PC-4 and 2PC-5: idempotent, resumable after a crash at any step, never hides lost
     * data; 2PC-11: a restored handle commits where its files are.
     */
    private void commitPreCommitted(FileTransaction transaction) throws IOException {
        for (PartFile part : located(transaction).parts()) {
            if (part.length() > 0) {
                commitPartOutsideSafeMode(part);
            }
        }
    }

    /**
     * Rule 2PC-11: where the files of {@code transaction} are, a handle written by a sink with
     * another output directory (a restored checkpoint or savepoint) among them. The whole
     * transaction commits in one place, so its part files never end up split between two
     * directories.
     *
     * <ol>
     *   <li>Under this sink's output directory, at the paths the handle names relative to its own,
     *       if any of its part files is there in progress or committed: the job directory was copied
     *       or moved with its checkpoints, and the copy is this job's. Renaming the files the
     *       handle names would publish the records in the other directory, and report them
     *       committed here.</li>
     *   <li>Else where it was written, if any is there: the path was changed between a savepoint
     *       and its restore, and the files stayed where they were.</li>
     *   <li>Else nowhere: the data is lost (2PC-5), unless nothing was written.</li>
     * </ol>
     */
    private FileTransaction located(FileTransaction transaction) throws IOException {
        if (transaction.directory().equals(directoryName)) {
            return transaction;
        }
        FileTransaction here = transaction.in(directoryName);
        if (anyPartFileExists(here)) {
            LOG.info("Transaction {} was written in {}; its files are in this sink's output directory {}, where it "
                    + "commits", here.key(), transaction.directory(), directoryName);
            return here;
        }
        if (transaction.length() == 0) {
            return transaction; // nothing was written: no file, nothing to commit anywhere
        }
        boolean there;
        try {
            there = anyPartFileExists(transaction);
        } catch (IllegalArgumentException e) {
            // Hadoop's "Wrong FS": this writer's client cannot reach the other file system.
            throw new IOException("the restored transaction " + transaction.key() + " was written on another file "
                    + "system than this sink's output directory " + directoryName + " and is not in it; set the sink's"
                    + " path back to " + transaction.directory() + " to commit it", e);
        }
        if (!there) {
            PartFile part = transaction.parts().get(0);
            throw new IOException("committed data missing: neither the in-progress part file " + part.inProgressPath()
                    + " nor the final part file " + part.finalPath() + " exists, nor either of them in this sink's output"
                    + " directory " + directoryName + ", but " + transaction.length() + " bytes were pre-committed");
        }
        LOG.info("Transaction {} is not in this sink's output directory {}; it commits in {}, where it was written",
                here.key(), directoryName, transaction.directory());
        return transaction;
    }

    /** Whether a part file of {@code transaction} that has pre-committed bytes exists, in progress or committed. */
    private boolean anyPartFileExists(FileTransaction transaction) throws IOException {
        for (PartFile part : transaction.parts()) {
            if (part.length() > 0 && (statusOrNull(new Path(part.inProgressPath())) != null
                    || statusOrNull(new Path(part.finalPath())) != null)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Commits {@code part}, waiting (up to the recovery timeout) while the name node is in safe
     * mode, where it refuses every change. A restarted name node stays there until enough data
     * nodes reported their blocks (30 s and more on real clusters): far longer than the runtime's
     * commit retries, which would fail the job for a pause that needs no recovery.
     */
    private void commitPartOutsideSafeMode(PartFile part) throws IOException {
        long deadline = deadline();
        boolean logged = false;
        while (true) {
            try {
                commitPart(part);
                return;
            } catch (RemoteException e) {
                if (!SAFE_MODE_EXCEPTION.equals(e.getClassName()) || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                if (!logged) {
                    LOG.info("Name node in safe mode; commit of {} waits up to {} for it to leave", part.finalPath(),
                            recoveryTimeout);
                    logged = true;
                }
                pause();
            }
        }
    }

    private void commitPart(PartFile transaction) throws IOException {
        Path inProgress = new Path(transaction.inProgressPath());
        Path target = new Path(transaction.finalPath());
        FileStatus status = statusOrNull(inProgress);
        if (status == null) {
            requireCommitted(transaction, target);
            return;
        }
        if (takeOverLease(inProgress)) {
            status = fs.getFileStatus(inProgress);
        }
        if (status.getLen() < transaction.length()) {
            throw new IOException("data lost: in-progress part file " + inProgress + " has " + status.getLen()
                    + " bytes but " + transaction.length() + " were pre-committed");
        }
        if (status.getLen() > transaction.length()) {
            // Bytes after the pre-committed length belong to no checkpoint; committing them would duplicate records.
            truncate(inProgress, transaction.length());
        }
        if (!fs.rename(inProgress, target)) {
            // HDFS answers false where local disk overwrites, onto an existing name, and reports some
            // failures only as false.
            if (statusOrNull(inProgress) == null) {
                // Renamed meanwhile, by another attempt committing the same handle, or gone.
                requireCommitted(transaction, target);
                return;
            }
            if (statusOrNull(target) == null) {
                throw new IOException("renaming in-progress part file " + inProgress + " to " + target
                        + " failed (" + fs.getScheme() + " gave no reason: is the directory writable?)");
            }
            requireCommitted(transaction, target);
            dropCopyOfCommitted(inProgress, target);
        }
    }

    /**
     * Both files exist and the final one has the pre-committed length: the in-progress one is a
     * surplus copy, which would be left behind, if the two hold the same bytes. If not, the final
     * name is another writer's file (a new job writing into the same directory whose random attempt
     * id clashed), and the in-progress file holds this transaction's only copy: it is kept and the
     * commit fails.
     */
    private void dropCopyOfCommitted(Path inProgress, Path target) throws IOException {
        FileChecksum ours = fs.getFileChecksum(inProgress);
        FileChecksum theirs = fs.getFileChecksum(target);
        if (ours == null || theirs == null) {
            LOG.warn("Part file {} is committed, but {} cannot tell whether {} holds the same bytes; it is left "
                    + "in place", target, fs.getScheme(), inProgress);
            return;
        }
        if (!ours.equals(theirs)) {
            throw new IOException("final part file " + target + " exists with the pre-committed length but other "
                    + "bytes than in-progress part file " + inProgress + ", which is kept: another writer's file has "
                    + "this name (a new job writing into the same directory?)");
        }
        try {
            fs.delete(inProgress, false);
        } catch (IOException e) {
            LOG.warn("Part file {} is committed; its surplus in-progress copy {} could not be deleted: {}", target,
                    inProgress, e.toString());
        }
    }

    private void requireCommitted(PartFile transaction, Path target) throws IOException {
        FileStatus committed = statusOrNull(target);
        if (committed == null) {
            throw new IOException("committed data missing: neither the in-progress part file "
                    + transaction.inProgressPath() + " nor the final part file " + transaction.finalPath()
                    + " exists, but " + transaction.length() + " bytes were pre-committed");
        }
        if (committed.getLen() != transaction.length()) {
            throw new IOException("final part file " + target + " has " + committed.getLen() + " bytes but "
                    + transaction.length() + " were pre-committed; it was changed after its commit");
        }
    }

    private void truncate(Path file, long length) throws IOException {
        if (!fs.truncate(file, length)) {
            // HDFS truncates inside a block by recovering the block in the background, and closes
            // the file when done. Renaming before then could publish the old length.
            if (!(fs instanceof LeaseRecoverable leases)) {
                throw new IOException("truncating " + file + " did not complete at once, and "
                        + fs.getScheme() + " cannot tell when it does");
            }
            long deadline = deadline();
            while (!leases.isFileClosed(file)) {
                checkDeadline(deadline, file, "truncate recovery");
                pause();
            }
        }
        long actual = fs.getFileStatus(file).getLen();
        if (actual != length) {
            throw new IOException("truncating " + file + " to " + length + " bytes left " + actual + " bytes");
        }
    }

    /**
     * On file systems with leases (HDFS): if a writer that died without closing {@code file} still
     * holds its lease, takes the lease over, which fences that writer and closes the file at its
     * durable length. Local file systems have no leases.
     *
     * @return whether the file was open, so its length may have changed
     */
    private boolean takeOverLease(Path file) throws IOException {
        if (!(fs instanceof LeaseRecoverable leases) || leases.isFileClosed(file)) {
            return false;
        }
        long deadline = deadline();
        boolean closed = leases.recoverLease(file);
        long askedAt = System.nanoTime();
        while (!closed) {
            checkDeadline(deadline, file, "lease recovery");
            pause();
            closed = leases.isFileClosed(file);
            if (!closed && System.nanoTime() - askedAt >= LEASE_RECOVERY_RETRY_NANOS) {
                closed = leases.recoverLease(file);
                askedAt = System.nanoTime();
            }
        }
        return true;
    }

    private void checkDeadline(long deadline, Path file, String what) throws IOException {
        if (System.nanoTime() - deadline > 0) {
            throw new IOException(what + " of part file " + file + " did not finish within " + recoveryTimeout);
        }
    }

    private static void pause() throws InterruptedIOException {
        try {
            // Recovery runs on the name node and data nodes; there is nothing to do but wait for it.
            Thread.sleep(RECOVERY_POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for HDFS");
        }
    }

    private long deadline() {
        return System.nanoTime() + recoveryTimeout.toNanos();
    }

    /**
     * Deletes the transaction's files; those of a dead process's transaction that it does not list
     * are abortLingering's. Only in this sink's output directory (2PC-11): a restored handle
     * written elsewhere names files there that another job may still be writing or committing.
     */
    @Override
    public void abort(FileTransaction transaction) throws IOException {
        if (!transaction.directory().equals(directoryName)) {
            LOG.info("Aborting transaction {} in this sink's output directory {}; where it was written, in {}, "
                    + "nothing is deleted", transaction.key(), directoryName, transaction.directory());
        }
        List<PartFile> files = new ArrayList<>(transaction.in(directoryName).parts());
        OpenTransaction txn = open.remove(transaction.key());
        forget();
        if (txn != null) {
            files.addAll(txn.closed);
            // Delete a finished part only once its sync is over, whatever its outcome, so that
            // neither the delete nor the sync fails for the other.
            txn.syncs.forEach(sync -> sync.exceptionally(failure -> null).join());
            if (txn.current != null) {
                txn.current.close();
                files.add(txn.current.name());
            }
        }
        for (PartFile part : files) {
            fs.delete(new Path(part.inProgressPath()), false);
        }
    }

    @Override
    public void recoverAndAbort(FileTransaction transaction) throws IOException {
        abort(transaction);
    }

    /**
     * 2PC-7: deletes the in-progress files of this subtask and of the former subtasks it owns. The
     * runtime recovered (committed) every pre-committed handle of the restored checkpoint before
     * this call, so the in-progress files left are of transactions no checkpoint holds: their
     * records will be replayed by the source.
     */
    @Override
    public void abortLingering() throws IOException {
        Set<String> ours = new HashSet<>();
        for (OpenTransaction txn : open.values()) {
            txn.closed.forEach(part -> ours.add(part.inProgressPath()));
            if (txn.current != null) {
                ours.add(txn.current.name().inProgressPath());
            }
        }
        for (FileStatus status : fs.listStatus(directory)) {
            Path path = status.getPath();
            OptionalInt formerSubtask = names.inProgressSubtask(path.getName());
            if (formerSubtask.isPresent() && context.ownsFormerSubtask(formerSubtask.getAsInt())
                    && !ours.contains(path.toString())) {
                fs.delete(path, false);
            }
        }
    }

    /**
     * Closes open streams, and the file system client if it is this writer's; what the streams
     * hold is aborted later by {@link #abortLingering} of the next attempt.
     */
    @Override
    public void close() throws IOException {
        IOException failure = null;
        // Syncs still running belong to a checkpoint this attempt will not complete (it is
        // acknowledged only after them): recovery commits or discards their files.
        syncThread.shutdownNow();
        try {
            syncThread.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (OpenTransaction txn : open.values()) {
            if (txn.current == null) {
                continue;
            }
            try {
                txn.current.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        open.clear();
        forget();
        if (ownsFileSystem) {
            try {
                fs.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private FileStatus statusOrNull(Path path) throws IOException {
        try {
            return fs.getFileStatus(path);
        } catch (FileNotFoundException e) {
            return null;
        }
    }

    /** Drops the handle {@link #write} remembers, when its transaction ends. */
    private void forget() {
        lastHandle = null;
        lastTransaction = null;
    }

    /** A transaction being written: the part files the rolling policy closed, and the one open. */
    private final class OpenTransaction {

        private final long checkpointId;
        /** Finished part files, with their final lengths. */
        private final List<PartFile> closed = new ArrayList<>();
        /** One per finished part: completes when it is durable and closed. */
        private final List<CompletableFuture<Void>> syncs = new ArrayList<>();
        private PartFileStream current;

        OpenTransaction(long checkpointId) {
            this.checkpointId = checkpointId;
        }

        /** Ends the open part file here, and makes it durable and closes it on the sync thread. */
        void finishCurrent() throws IOException {
            PartFileStream stream = current;
            PartFile part = stream.finish();
            current = null;
            closed.add(part);
            CompletableFuture<Void> synced = new CompletableFuture<>();
            syncs.add(synced);
            syncThread.execute(() -> {
                try {
                    stream.syncAndClose();
                    synced.complete(null);
                } catch (Throwable t) {
                    synced.completeExceptionally(new IOException("could not make part file " + part.inProgressPath()
                            + " durable (" + part.length() + " bytes): " + t.getMessage(), t));
                }
            });
        }

        PartFile partName(int part) {
            int subtask = context.subtaskIndex();
            String attempt = context.attemptId();
            return new PartFile(new Path(directory, names.inProgressName(subtask, checkpointId, part, attempt)).toString(),
                    new Path(directory, names.finalName(subtask, checkpointId, part, attempt)).toString(), 0);
        }
    }
}
