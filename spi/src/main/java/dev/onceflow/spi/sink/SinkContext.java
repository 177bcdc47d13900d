package dev.onceflow.spi.sink;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Who a sink writer is: the coordinates from which it derives deterministic transaction ids, so
 * that after a crash it can find and abort what a previous attempt left open.
 *
 * @param jobName the job's name, stable across restarts of the same job
 * @param sinkUid the sink operator's uid, stable across restarts and job changes
 * @param subtaskIndex this writer's parallel index, {@code 0 <= subtaskIndex < parallelism}
 * @param parallelism number of parallel writers now
 * @param restoredParallelism number of parallel writers when the restored checkpoint was taken
 *     ({@code parallelism} if nothing was restored)
 * @param restoredCheckpointId the checkpoint this attempt restored from, if any
 * @param attemptId unique per process attempt; use it in names that must never collide across
 *     attempts (file names), never in ids that recovery must find again (transaction ids)
 * @param maxConcurrentCheckpoints how many checkpoints may be in flight at once; a two-phase
 *     commit writer holds up to this many pre-committed transactions plus the open one, which is
 *     what to size server-side limits by (PostgreSQL's {@code max_prepared_transactions})
 * @param maxCommitWait how long a pre-committed transaction may have to wait for its commit while
 *     the job runs and restarts by itself: the checkpoint timeout plus the restart strategy's
 *     delays. Empty when the runtime cannot bound it (unbounded restarts). A process that dies and
 *     is resumed by hand can wait longer; nothing bounds that. A sink whose external system
 *     aborts transactions after a timeout (Kafka's {@code transaction.timeout.ms}) should refuse to
 *     start, saying what to set, when its timeout is not longer than this.
 */
public record SinkContext(String jobName, String sinkUid, int subtaskIndex, int parallelism,
        int restoredParallelism, OptionalLong restoredCheckpointId, String attemptId, int maxConcurrentCheckpoints,
        Optional<Duration> maxCommitWait) {

    public SinkContext {
        if (subtaskIndex < 0 || subtaskIndex >= parallelism) {
            throw new IllegalArgumentException("subtask " + subtaskIndex + " outside parallelism " + parallelism);
        }
        if (maxConcurrentCheckpoints < 1) {
            throw new IllegalArgumentException("max concurrent checkpoints must be at least 1, was "
                    + maxConcurrentCheckpoints);
        }
        Objects.requireNonNull(maxCommitWait, "maxCommitWait");
        // Both are part of every transaction id (2PC-9): an empty one would make ids of different sinks alike.
        if (jobName == null || jobName.isEmpty() || sinkUid == null || sinkUid.isEmpty()) {
            throw new IllegalArgumentException("job name and sink uid must be non-empty (job '" + jobName
                    + "', sink uid '" + sinkUid + "')");
        }
    }

    /** A context without a known commit wait. */
    public SinkContext(String jobName, String sinkUid, int subtaskIndex, int parallelism, int restoredParallelism,
            OptionalLong restoredCheckpointId, String attemptId, int maxConcurrentCheckpoints) {
        this(jobName, sinkUid, subtaskIndex, parallelism, restoredParallelism, restoredCheckpointId, attemptId,
                maxConcurrentCheckpoints, Optional.empty());
    }

    /** A context for a job that takes one checkpoint at a time (the runtime's default). */
    public SinkContext(String jobName, String sinkUid, int subtaskIndex, int parallelism, int restoredParallelism,
            OptionalLong restoredCheckpointId, String attemptId) {
        this(jobName, sinkUid, subtaskIndex, parallelism, restoredParallelism, restoredCheckpointId, attemptId, 1);
    }

    /**
     * The most transactions of one writer that can be pre-committed or open at the same time:
     * {@code maxConcurrentCheckpoints + 1}. Multiply by the parallelism for the whole sink.
     */
    public int maxOpenTransactionsPerWriter() {
        return maxConcurrentCheckpoints + 1;
    }

    /**
     * The deterministic transaction id of {@code subtask}'s transaction for checkpoint
     * {@code checkpointId}: {@code <job>:<sinkUid>:<subtask>:<checkpointId>} with job and sink
     * uid escaped ({@link TransactionId}), so that no two jobs or sinks share an id or a
     * {@linkplain #transactionIdPrefix() prefix}. Rules 2PC-8 and 2PC-9.
     */
    public String transactionId(int subtask, long checkpointId) {
        return new TransactionId(jobName, sinkUid, subtask, checkpointId).encode();
    }

    /** What every {@link #transactionId} of this job and sink starts with, and no other job's or sink's does. */
    public String transactionIdPrefix() {
        return TransactionId.prefix(jobName, sinkUid);
    }

    /**
     * The decoded form of {@code id} if it is one of this job's and sink's transaction ids, in the
     * current encoding or in the one before it (ids in handles of checkpoints taken before the
     * change, matched against this job's and sink's exact names); empty for any other id.
     */
    public Optional<TransactionId> ownTransactionId(String id) {
        Optional<TransactionId> decoded = TransactionId.parse(id);
        if (decoded.isEmpty()) {
            decoded = TransactionId.parseLegacy(id, jobName, sinkUid);
        }
        return decoded.filter(t -> t.jobName().equals(jobName) && t.sinkUid().equals(sinkUid));
    }

    /**
     * Whether this writer is responsible for cleaning up after {@code formerSubtask} of an earlier
     * attempt: its own index, and after a scale-down the indexes that no longer exist
     * ({@code formerSubtask % parallelism == subtaskIndex}).
     */
    public boolean ownsFormerSubtask(int formerSubtask) {
        return formerSubtask % parallelism == subtaskIndex;
    }
}
