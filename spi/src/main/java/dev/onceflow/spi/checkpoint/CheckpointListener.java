package dev.onceflow.spi.checkpoint;

/**
 * Told when a checkpoint completes or is given up. Source readers and split enumerators implement
 * it to release what they held back for that checkpoint. (Sink writers are not listeners: the
 * runtime's sink operators call their commit methods, following rules 2PC-3 and 2PC-6.)
 *
 * <p><b>Caller and thread.</b> The runtime, on the same thread that runs the component's other
 * methods (a task's mailbox thread, or the coordinator thread for enumerators), so no locking is
 * needed. Never concurrently with the component's other methods.
 *
 * <p><b>What may be assumed</b> (rules CL-1 to CL-3 in {@code docs/spec.md}):
 * <ul>
 *   <li>CL-1: notifications are best effort. A crash can happen before any of them arrives, and a
 *       later notification subsumes earlier ones: completion of {@code n} means every checkpoint
 *       {@code <= n} that this component snapshotted is durable too, even if it was never told.</li>
 *   <li>CL-2: notifications arrive in increasing checkpoint order, but ids can be skipped.</li>
 *   <li>CL-3: after a crash nothing is re-notified: work owed to a completed checkpoint must be
 *       found again from the restored state (see {@code TransactionalWriter#recoverAndCommit}).</li>
 * </ul>
 */
public interface CheckpointListener {

    /**
     * Checkpoint {@code checkpointId} is complete: its metadata is durably written and it will be
     * the restore point unless a later one completes. Side effects held back for it (and every
     * earlier checkpoint) may now become visible.
     *
     * @throws Exception fails the job; the checkpoint stays complete and recovery starts from it
     */
    default void notifyCheckpointComplete(long checkpointId) throws Exception {
    }

    /**
     * Checkpoint {@code checkpointId} was given up (timeout, a failed task, a failed write) and will
     * never complete. Whatever was prepared for it stays valid for the next checkpoint: the runtime
     * never aborts transactions it already pre-committed (rule 2PC-6).
     */
    default void notifyCheckpointAborted(long checkpointId) throws Exception {
    }
}
