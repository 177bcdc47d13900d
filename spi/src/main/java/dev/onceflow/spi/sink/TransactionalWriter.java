package dev.onceflow.spi.sink;

/**
 * The per-subtask half of a {@link TwoPhaseCommitSink}. The numbered rules (2PC-1 ...) are in
 * {@code docs/spec.md}; the conformance suite has one test per rule.
 *
 * <p><b>Thread.</b> Every method is called on the subtask's task thread, never concurrently. The
 * writer may keep live resources (connections, producers, open streams) keyed by handle. Only the
 * work a writer chooses to finish off that thread after {@link #preCommitAsync} runs elsewhere.
 *
 * <p><b>Order of calls in one attempt.</b>
 * <ol>
 *   <li>On restore only: {@link #recoverAndCommit} for each pre-committed handle of the restored
 *       checkpoint, oldest first, then {@link #recoverAndAbort} for the handle that was open.</li>
 *   <li>{@link #abortLingering()} once, always (fresh start or restore).</li>
 *   <li>Repeatedly: {@link #beginTransaction}, {@link #write} any number of times,
 *       {@link #preCommitAsync} at the barrier; and, when a checkpoint completes, {@link #commit} of
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
     * <p>The runtime calls {@link #preCommitAsync}, whose default calls this method; a writer that
     * overrides {@link #preCommitAsync} implements this one by waiting for its stage.
     *
     * @return the handle to store in the checkpoint; it may record what pre-commit learned
     *     (a file length, a producer epoch)
     */
    TXN preCommit(TXN transaction) throws Exception;

    /**
     * Pre-commits {@code transaction} as {@link #preCommit} does, but may finish making it durable
     * off the task thread, so that the task goes on processing the next transaction's records while
     * the external system forces the data out (an {@code hsync}, an {@code fsync}, waiting for
     * acknowledgements). The runtime calls this method, not {@link #preCommit}, at every barrier.
     *
     * <p><b>Caller and thread.</b> The task thread, once per transaction, where {@link #preCommit}
     * would be called. The returned stage may complete on any thread, and must not need the task
     * thread to do so: the task thread does not wait for it.
     *
     * <p><b>What the runtime guarantees.</b> It stores {@link PreCommitted#handle()} in the
     * checkpoint and acknowledges the checkpoint only after {@link PreCommitted#durable()}
     * completed normally, and after the stages of every earlier checkpoint of this writer did. So
     * no checkpoint that holds the handle completes, and {@link #commit} of the handle is never
     * called, before the transaction is durable. Meanwhile it calls {@link #beginTransaction} and
     * {@link #write} for the next transaction and {@link #commit} of earlier handles, on the task
     * thread as ever: work done off the task thread must only touch the transaction it was
     * started for. If the stage completes exceptionally, the job fails; the transaction then
     * belongs to no completed checkpoint and the next attempt's {@link #abortLingering} removes it.
     * {@link #close()} may be called while a stage is incomplete (the job failed or was
     * cancelled): the writer then stops that work without committing anything.
     *
     * <p>After a crash before the stage completed, the checkpoint is incomplete, so the
     * transaction is one the restored checkpoint does not know of (2PC-7).
     *
     * <p>The default calls {@link #preCommit} and returns a completed stage, which is right for
     * writers whose pre-commit takes no noticeable time. Even one round trip may be worth moving
     * off the task thread when the external system forces a log to disk for it: the task's state
     * is written only after this method returns, so a pre-commit finished off the task thread
     * overlaps that write (the JDBC sink's {@code PREPARE TRANSACTION} does).
     */
    default PreCommitted<TXN> preCommitAsync(TXN transaction) throws Exception {
        return PreCommitted.durable(preCommit(transaction));
    }

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
