package dev.onceflow.connector.filesystem;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LeaseRecoverable;
import org.apache.hadoop.fs.Path;

/**
 * Writes one part file per checkpoint and subtask, and commits it by renaming it from its hidden
 * in-progress name to its final name.
 *
 * <p>Why this is exactly-once: a part file becomes visible only by the rename in {@link #commit},
 * which happens after its checkpoint completed; pre-commit makes the bytes durable and records
 * their number in the handle, so a later process can finish the commit from the handle alone and
 * can tell a finished commit (final file present) from lost data (neither file present).
 */
final class FileSystemSinkWriter implements TransactionalWriter<Event, FileTransaction> {

    /** Pause between polls of the HDFS block or lease recovery that truncate and commit may wait for. */
    private static final long RECOVERY_POLL_MILLIS = 100;

    private final SinkContext context;
    private final FileSystem fs;
    private final Path directory;
    private final PartFileNames names;
    private final Duration recoveryTimeout;
    /** Streams of transactions written to and not yet pre-committed, by in-progress path. */
    private final Map<String, PartFileStream> openFiles = new HashMap<>();

    FileSystemSinkWriter(SinkContext context, FileSystem fs, Path directory, PartFileNames names,
            Duration recoveryTimeout) {
        this.context = context;
        this.fs = fs;
        this.directory = directory;
        this.names = names;
        this.recoveryTimeout = recoveryTimeout;
    }

    /** Only names the files: the file is created on the first write, so empty checkpoints leave none. */
    @Override
    public FileTransaction beginTransaction(long checkpointId) {
        int subtask = context.subtaskIndex();
        String attempt = context.attemptId();
        return new FileTransaction(
                new Path(directory, names.inProgressName(subtask, checkpointId, attempt)).toString(),
                new Path(directory, names.finalName(subtask, checkpointId, attempt)).toString(), 0);
    }

    @Override
    public void write(FileTransaction transaction, Event record) throws IOException {
        PartFileStream stream = openFiles.get(transaction.inProgressPath());
        if (stream == null) {
            // Never overwrite: names are unique per attempt, so an existing file is a bug to surface.
            stream = new PartFileStream(fs.create(new Path(transaction.inProgressPath()), false));
            openFiles.put(transaction.inProgressPath(), stream);
        }
        stream.write(record);
    }

    @Override
    public FileTransaction preCommit(FileTransaction transaction) throws IOException {
        PartFileStream stream = openFiles.remove(transaction.inProgressPath());
        if (stream == null) {
            return transaction.withLength(0);
        }
        return transaction.withLength(stream.syncAndClose());
    }

    @Override
    public void commit(FileTransaction transaction) throws IOException {
        commitPreCommitted(transaction);
    }

    @Override
    public void recoverAndCommit(FileTransaction transaction) throws IOException {
        commitPreCommitted(transaction);
    }

    /** 2PC-3, 2PC-4 and 2PC-5: idempotent, resumable after a crash at any step, never hides lost data. */
    private void commitPreCommitted(FileTransaction transaction) throws IOException {
        if (transaction.length() == 0) {
            return;
        }
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
            // HDFS reports some failures only as false; succeed only if the commit did happen.
            requireCommitted(transaction, target);
        }
    }

    private void requireCommitted(FileTransaction transaction, Path target) throws IOException {
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
        while (!leases.recoverLease(file)) {
            checkDeadline(deadline, file, "lease recovery");
            pause();
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
            throw new InterruptedIOException("interrupted while waiting for HDFS recovery");
        }
    }

    private long deadline() {
        return System.nanoTime() + recoveryTimeout.toNanos();
    }

    @Override
    public void abort(FileTransaction transaction) throws IOException {
        PartFileStream stream = openFiles.remove(transaction.inProgressPath());
        if (stream != null) {
            stream.close();
        }
        fs.delete(new Path(transaction.inProgressPath()), false);
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
        for (FileStatus status : fs.listStatus(directory)) {
            Path path = status.getPath();
            OptionalInt formerSubtask = names.inProgressSubtask(path.getName());
            if (formerSubtask.isPresent() && context.ownsFormerSubtask(formerSubtask.getAsInt())
                    && !openFiles.containsKey(path.toString())) {
                fs.delete(path, false);
            }
        }
    }

    /** Closes open streams; what they hold is aborted later by {@link #abortLingering} of the next attempt. */
    @Override
    public void close() throws IOException {
        IOException failure = null;
        for (PartFileStream stream : openFiles.values()) {
            try {
                stream.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        openFiles.clear();
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
}
