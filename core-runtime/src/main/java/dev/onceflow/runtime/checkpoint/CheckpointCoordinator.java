package dev.onceflow.runtime.checkpoint;

import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.fault.FaultPoints;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Triggers checkpoints at the sources, collects every task's acknowledgement, completes a
 * checkpoint by writing its metadata, and only then tells tasks (and so sinks) that it is
 * complete. Every method runs on the coordinator thread ({@code executor}, single-threaded), so
 * the coordinator's fields need no locks; other threads submit to it.
 */
public final class CheckpointCoordinator {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

    /** The rest of the job, as the coordinator sees it. */
    public interface Participants {

        /** Number of tasks that must acknowledge each checkpoint. */
        int taskCount();

        /** Snapshots every enumerator; runs before the sources see the trigger. */
        List<CheckpointMetadata.EnumeratorStateRef> snapshotEnumerators(long checkpointId) throws Exception;

        /** Sends the trigger to every source task's mailbox. */
        void triggerSources(CheckpointBarrier barrier);

        void notifyComplete(long checkpointId);

        void notifyAborted(long checkpointId);

        void failJob(Throwable cause);

        /** A checkpoint completed or failed; for the job's history and metrics. */
        void checkpointFinished(CheckpointStats stats);
    }

    private final String jobName;
    private final int maxParallelism;
    private final CheckpointConfig config;
    private final CheckpointStorage storage;
    private final ScheduledExecutorService executor;
    private final Participants participants;
    private final TreeMap<Long, Pending> pending = new TreeMap<>();
    private long nextId;
    private long lastCompletionNanos;
    private int consecutiveFailures;
    private boolean finalRequested;
    private boolean shutdown;
    private ScheduledFuture<?> periodic;
    private volatile CheckpointLocation lastCompleted;
    /** The newest completed checkpoint (not savepoint) of this attempt: incremental snapshots build on it. */
    private long lastCompletedCheckpointId = -1;

    public CheckpointCoordinator(String jobName, int maxParallelism, CheckpointConfig config, CheckpointStorage storage,
            ScheduledExecutorService executor, Participants participants, long firstCheckpointId) {
        this.jobName = jobName;
        this.maxParallelism = maxParallelism;
        this.config = config;
        this.storage = storage;
        this.executor = executor;
        this.participants = participants;
        this.nextId = firstCheckpointId;
    }

    /** Starts periodic checkpoints if an interval is set. Call on the coordinator thread. */
    public void start() {
        lastCompletionNanos = System.nanoTime() - config.minPause().toNanos();
        if (config.periodic()) {
            long interval = config.interval().toMillis();
            periodic = executor.scheduleWithFixedDelay(this::periodicTrigger, interval, interval, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Stops triggering and gives up pending checkpoints: their timeouts are cancelled (so the
     * coordinator thread can end at once) and waiting savepoint requests fail now instead of when
     * their timeout would have fired.
     */
    public void shutdown() {
        shutdown = true;
        if (periodic != null) {
            periodic.cancel(false);
        }
        for (Pending p : pending.values()) {
            if (p.timeout != null) {
                p.timeout.cancel(false);
            }
            if (p.savepoint != null) {
                p.savepoint.completeExceptionally(new IllegalStateException("the job stopped before savepoint "
                        + p.id + " completed"));
            }
        }
        pending.clear();
    }

    /** The directory of the last checkpoint this coordinator completed, or {@code null}. */
    public CheckpointLocation lastCompleted() {
        return lastCompleted;
    }

    private void periodicTrigger() {
        if (shutdown || finalRequested || pending.size() >= config.maxConcurrent()
                || System.nanoTime() - lastCompletionNanos < config.minPause().toNanos()) {
            return;
        }
        trigger(CheckpointKind.CHECKPOINT, false, null);
    }

    /** Every source reached its end: take the final checkpoint, after which the job finishes. */
    public void triggerFinal() {
        if (!finalRequested) {
            finalRequested = true;
            if (periodic != null) {
                periodic.cancel(false);
            }
            trigger(CheckpointKind.CHECKPOINT, true, null);
        }
    }

    /** Takes a savepoint; with {@code stop}, the job finishes once it completes. */
    public CompletableFuture<CheckpointLocation> triggerSavepoint(boolean stop) {
        CompletableFuture<CheckpointLocation> result = new CompletableFuture<>();
        if (shutdown || finalRequested) {
            result.completeExceptionally(new IllegalStateException("the job is finishing; no savepoint can be taken"));
            return result;
        }
        if (stop) {
            finalRequested = true;
            if (periodic != null) {
                periodic.cancel(false);
            }
        }
        trigger(CheckpointKind.SAVEPOINT, stop, result);
        return result;
    }

    private void trigger(CheckpointKind kind, boolean terminal, CompletableFuture<CheckpointLocation> savepoint) {
        long id = nextId++;
        long timestamp = System.currentTimeMillis();
        Pending p = new Pending(id, kind, terminal, System.nanoTime(), timestamp, savepoint);
        try {
            p.enumerators = participants.snapshotEnumerators(id);
        } catch (Exception e) {
            LOG.warn("Checkpoint {} failed: an enumerator could not snapshot: {}", id, e.toString());
            failed(p, "enumerator snapshot failed: " + e);
            return;
        }
        pending.put(id, p);
        p.timeout = executor.schedule(() -> abort(id, "timed out after " + config.timeout().toMillis() + " ms"),
                config.timeout().toMillis(), TimeUnit.MILLISECONDS);
        LOG.debug("Triggering {} {}{}", kind.name().toLowerCase(java.util.Locale.ROOT), id, terminal ? " (terminal)" : "");
        p.base = lastCompletedCheckpointId;
        participants.triggerSources(new CheckpointBarrier(id, timestamp, kind, terminal, lastCompletedCheckpointId));
    }

    /** A task's state is written. Any thread. */
    public void acknowledge(String taskKey, long checkpointId, CheckpointMetadata.TaskStateRef ref, long alignmentNanos) {
        onCoordinatorThread(() -> {
            Pending p = pending.get(checkpointId);
            if (p == null) {
                return; // aborted or subsumed meanwhile; its directory is discarded or pruned
            }
            p.acks.put(taskKey, ref);
            p.maxAlignmentNanos = Math.max(p.maxAlignmentNanos, alignmentNanos);
            if (p.acks.size() == participants.taskCount()) {
                complete(p);
            }
        });
    }

    /** A task could not snapshot. Any thread. */
    public void decline(long checkpointId, Throwable cause) {
        onCoordinatorThread(() -> abort(checkpointId, cause.getMessage()));
    }

    /**
     * Hands a task's message to the coordinator thread. Snapshot threads may still report after the
     * attempt ended and stopped that thread; such a late message concerns a checkpoint that can no
     * longer complete, so it is dropped instead of failing the reporting thread.
     */
    private void onCoordinatorThread(Runnable message) {
        try {
            executor.execute(message);
        } catch (RejectedExecutionException e) {
            if (!executor.isShutdown()) {
                throw e;
            }
            LOG.debug("dropped a task message that arrived after the coordinator stopped");
        }
    }

    private void complete(Pending p) {
        FaultPoints.reach(FaultPoints.COORDINATOR_BEFORE_METADATA);
        List<CheckpointMetadata.TaskStateRef> tasks = new ArrayList<>(p.acks.values());
        tasks.sort((a, b) -> a.file().compareTo(b.file()));
        CheckpointMetadata metadata = new CheckpointMetadata(CheckpointMetadata.FORMAT_VERSION, p.id, p.kind, jobName,
                config.mode().name(), maxParallelism, p.timestamp, System.currentTimeMillis(), tasks, p.enumerators);
        CheckpointLocation directory;
        try {
            directory = storage.writeMetadata(metadata);
        } catch (Exception e) {
            abort(p.id, "writing the metadata failed: " + e);
            return;
        }
        pending.remove(p.id);
        p.timeout.cancel(false);
        lastCompleted = directory;
        if (p.kind == CheckpointKind.CHECKPOINT) {
            lastCompletedCheckpointId = p.id;
        }
        lastCompletionNanos = System.nanoTime();
        consecutiveFailures = 0;
        CheckpointStats stats = new CheckpointStats(p.id, p.kind, true, p.timestamp,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - p.startNanos), metadata.stateSize(),
                metadata.fullStateSize(), TimeUnit.NANOSECONDS.toMillis(p.maxAlignmentNanos), null);
        participants.checkpointFinished(stats);
        LOG.debug("Completed {} {} in {} ms ({} bytes) at {}", p.kind.name().toLowerCase(java.util.Locale.ROOT), p.id,
                stats.durationMillis(), stats.stateBytes(), directory);
        // Older pending checkpoints can never be restored in preference to this one: drop them.
        Iterator<Map.Entry<Long, Pending>> older = pending.headMap(p.id, false).entrySet().iterator();
        while (older.hasNext()) {
            Pending subsumed = older.next().getValue();
            older.remove();
            subsumed.timeout.cancel(false);
            if (subsumed.savepoint != null) {
                subsumed.savepoint.completeExceptionally(new IllegalStateException("savepoint subsumed by checkpoint " + p.id));
            }
        }
        FaultPoints.reach(FaultPoints.COORDINATOR_AFTER_COMPLETE_BEFORE_NOTIFY);
        participants.notifyComplete(p.id);
        if (p.savepoint != null) {
            p.savepoint.complete(directory);
        }
        try {
            // A running checkpoint's incremental snapshots refer to files of its base: keep that one.
            Set<Long> bases = new HashSet<>();
            pending.values().forEach(running -> bases.add(running.base));
            storage.prune(config.retained(), bases);
        } catch (Exception e) {
            LOG.warn("Could not prune old checkpoints: {}", e.toString());
        }
    }

    private void abort(long checkpointId, String reason) {
        Pending p = pending.remove(checkpointId);
        if (p == null) {
            return;
        }
        p.timeout.cancel(false);
        LOG.warn("{} {} aborted: {}", p.kind == CheckpointKind.SAVEPOINT ? "Savepoint" : "Checkpoint", checkpointId, reason);
        storage.discard(checkpointId, p.kind);
        participants.notifyAborted(checkpointId);
        failed(p, reason);
    }

    private void failed(Pending p, String reason) {
        participants.checkpointFinished(new CheckpointStats(p.id, p.kind, false, p.timestamp,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - p.startNanos), 0, 0, 0, reason));
        if (p.savepoint != null) {
            p.savepoint.completeExceptionally(new IllegalStateException("savepoint " + p.id + " failed: " + reason));
        }
        if (p.terminal) {
            if (p.savepoint != null) {
                finalRequested = false; // stop-with-savepoint failed: the job keeps running
                if (config.periodic() && !shutdown) {
                    long interval = config.interval().toMillis();
                    periodic = executor.scheduleWithFixedDelay(this::periodicTrigger, interval, interval,
                            TimeUnit.MILLISECONDS);
                }
            } else if (!shutdown) {
                // The final checkpoint must happen for a bounded job to commit its last records.
                executor.execute(() -> trigger(CheckpointKind.CHECKPOINT, true, null));
            }
        }
        consecutiveFailures++;
        if (consecutiveFailures > config.tolerableFailures()) {
            participants.failJob(new Exception(consecutiveFailures + " consecutive checkpoint failures exceed "
                    + "tolerable-failures=" + config.tolerableFailures() + "; last: " + reason));
        }
    }

    private static final class Pending {
        final long id;
        final CheckpointKind kind;
        final boolean terminal;
        final long startNanos;
        final long timestamp;
        final CompletableFuture<CheckpointLocation> savepoint;
        final Map<String, CheckpointMetadata.TaskStateRef> acks = new HashMap<>();
        List<CheckpointMetadata.EnumeratorStateRef> enumerators = List.of();
        long maxAlignmentNanos;
        ScheduledFuture<?> timeout;
        /** The last completed checkpoint when this one was triggered. */
        long base = -1;

        Pending(long id, CheckpointKind kind, boolean terminal, long startNanos, long timestamp,
                CompletableFuture<CheckpointLocation> savepoint) {
            this.id = id;
            this.kind = kind;
            this.terminal = terminal;
            this.startNanos = startNanos;
            this.timestamp = timestamp;
            this.savepoint = savepoint;
        }
    }
}
