package dev.onceflow.spi.sink;

/**
 * The per-subtask half of a {@link TwoPhaseCommitSink}. The numbered rules (2PC-1 ...) are in
 * {@code docs/spec.md}; the conformance suite has one test per rule.
 *
 * <p><b>Thread.</b> Every method is called on the subtask's task thread, never concurrently. The
 * writer may keep live resources (connections, producers, open streams) keyed by handle.
 *
 * <p><b>Order of calls in one attempt.</b>
 * <ol>
 *   <li>On restore only: {@link #recoverAndCommit} for each pre-committed handle of the restored
 *       checkpoint, oldest first, then {@link #recoverAndAbort} for the handle that was open.</li>
 *   <li>{@link #abortLingering()} once, always (fresh start or restore).</li>
 *   <li>Repeatedly: {@link #beginTransaction}, {@link #write} any number of times,
 *       {@link #preCommit} at the barrier; and, when a checkpoint completes, {@link #commit} of
 *       every pre-committed handle up to it, oldest first.</li>
 *   <li>{@link #abort} of the open transaction and {@link #close()} when the job stops or fails
 *       (not after a crash: then nothing is called, which is what recovery is for).</li>
 * </ol>
 *
 * <p><b>Failures.</b> An exception from {@link #commit} is retried with backoff; when retries are
 * exhausted the job fails and the handle stays in the checkpoint, so it is committed again on
 * recovery. It is never dropped. An exception from any other method fails the job.
 *
 * @param <IN> records written
 * @param <TXN> the transaction handle
 */
public interface TransactionalWriter<IN, TXN> extends AutoCloseable {

    /**
     * Opens the transaction that barrier {@code checkpointId} will pre-commit. 2PC-8: its external
     * id must be derived deterministically from the {@link SinkContext} and {@code checkpointId}
     * (see {@link SinkContext#transactionId}), so a later attempt can find it.
     */
    TXN beginTransaction(long checkpointId) throws Exception;

    /** Writes one record into the open transaction {@code transaction}. */
    void write(TXN transaction, IN record) throws Exception;

    /**
     * Makes the transaction durable but not visible (flush, {@code PREPARE}, close the part file).
     * 2PC-1: nothing written may become visible to a committed reader before {@link #commit}.
     * 2PC-2: after this returns, the transaction survives the death of this process and can be
     * committed by another process given only the returned handle.
     *
     * @return the handle to store in the checkpoint; it may record what pre-commit learned
     *     (a file length, a producer epoch)
     */
    TXN preCommit(TXN transaction) throws Exception;

    /**
     * Makes a pre-committed transaction visible. Called after the checkpoint that holds the handle
     * completed. 2PC-3: once called, the transaction must end up committed, even if this process
     * dies before the next checkpoint. 2PC-4: committing a handle that is already committed
     * succeeds without effect, because the runtime commits again after a crash between commit
     * and the next checkpoint.
     */
    void commit(TXN transaction) throws Exception;

    /** Discards an open (not pre-committed) transaction. Called on shutdown and failure. */
    void abort(TXN transaction) throws Exception;

    /**
     * Commits a pre-committed transaction found in a restored checkpoint, possibly written by a
     * dead process. 2PC-5: if it was already committed, succeed without effect; if it can no
     * longer be committed and its data is gone, throw: never report success for lost data.
     */
    void recoverAndCommit(TXN transaction) throws Exception;

    /**
     * Discards the transaction that was open when the restored checkpoint was taken; its records
     * will be replayed by the source. Must succeed if the transaction no longer exists.
     */
    void recoverAndAbort(TXN transaction) throws Exception;

    /**
     * 2PC-7: aborts every transaction that a previous attempt of this sink may have opened and
     * that the restored checkpoint does not know of: those for checkpoint ids after
     * {@link SinkContext#restoredCheckpointId()} (all of them on a fresh start) of this subtask
     * and of every former subtask that {@link SinkContext#ownsFormerSubtask} assigns to it. They
     * would otherwise block readers (Kafka's last stable offset) or hold locks and slots
     * (prepared transactions). Called once per attempt, after recovery and before the first
     * {@link #beginTransaction}.
     */
    void abortLingering() throws Exception;

    /** Releases live resources. Must not commit or abort anything pre-committed. */
    @Override
    void close() throws Exception;
}
