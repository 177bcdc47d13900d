package dev.onceflow.runtime.execution;

import dev.onceflow.runtime.checkpoint.CheckpointHistory;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.checkpoint.CheckpointStorage;
import dev.onceflow.runtime.checkpoint.RestoredCheckpoint;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.config.CommitRetry;
import dev.onceflow.runtime.config.RestartStrategy;
import dev.onceflow.runtime.graph.JobPlan;
import dev.onceflow.runtime.metrics.JobMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A submitted job: runs attempts on its own thread, restarting from the latest completed checkpoint
 * as the restart strategy allows, and lets the caller take savepoints, watch progress, or cancel.
 */
public final class JobClient {

    private static final Logger LOG = LoggerFactory.getLogger(JobClient.class);

    private final String jobName;
    private final JobPlan plan;
    private final CheckpointConfig checkpointConfig;
    private final CommitRetry commitRetry;
    private final RestartStrategy restartStrategy;
    private final CheckpointStorage storage;
    private final JobMetrics metrics;
    private final CheckpointHistory history = new CheckpointHistory();
    private final CompletableFuture<JobResult> result = new CompletableFuture<>();
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private volatile JobExecution current;
    private volatile boolean cancelled;
    private volatile int restarts;
    private volatile long readBefore;
    private volatile long writtenBefore;
    private volatile long deadLettersBefore;

    /**
     * Validates the restore point and starts the job on a new thread. Its meters go to
     * {@code registry} for the job's whole life, restarts included.
     *
     * @throws IncompatibleRestorePointException if the restore point was taken with another max
     *     parallelism or holds state for operators the job does not have (unless {@code allowNonRestoredState})
     * @throws DuplicateRiskException if the restore point is older than a completed checkpoint of
     *     the job, or the newest completed one cannot be read (EO-5)
     */
    public static JobClient start(String jobName, JobPlan plan, CheckpointConfig checkpointConfig,
            CommitRetry commitRetry, RestartStrategy restartStrategy, RestoreSetting restore,
            boolean allowNonRestoredState, MeterRegistry registry) throws java.io.IOException {
        CheckpointStorage storage = new CheckpointStorage(checkpointConfig.directory().resolve(jobName));
        RestoredCheckpoint initial = RestorePoints.choose(jobName, storage, restore);
        if (initial != null && initial.metadata().maxParallelism() != plan.maxParallelism()) {
            // Keys would hash to other key groups and their state would silently go missing.
            throw new IncompatibleRestorePointException(initial.directory() + " was taken with max-parallelism "
                    + initial.metadata().maxParallelism() + " but the job has " + plan.maxParallelism()
                    + "; the max parallelism of a job cannot change");
        }
        if (initial != null) {
            Set<String> unknown = new HashSet<>(initial.operatorUids());
            unknown.removeAll(plan.uids());
            if (!unknown.isEmpty() && !allowNonRestoredState) {
                throw new IncompatibleRestorePointException(initial.directory() + " holds state of operators " + unknown
                        + " that the job does not have; change the uids back or allow non-restored state"
                        + " (--allow-non-restored-state, or setAllowNonRestoredState(true))");
            }
            LOG.info("Restoring job {} from {} (checkpoint {})", jobName, initial.directory(), initial.checkpointId());
        } else if (restore instanceof RestoreSetting.Latest) {
            LOG.info("No completed checkpoint of job {} in {}; starting fresh", jobName, storage.jobDirectory());
        }
        if (!checkpointConfig.periodic()) {
            LOG.warn("Checkpointing is off for job {}: transactional sinks commit only at the end of bounded input, "
                    + "and a crash restarts the job from the beginning", jobName);
        }
        JobClient client = new JobClient(jobName, plan, checkpointConfig, commitRetry, restartStrategy, storage,
                new JobMetrics(jobName, registry));
        RestoredCheckpoint restorePoint = initial;
        Thread runner = new Thread(() -> client.runAttempts(restorePoint), "onceflow-job-" + jobName);
        runner.start();
        return client;
    }

    private JobClient(String jobName, JobPlan plan, CheckpointConfig checkpointConfig, CommitRetry commitRetry,
            RestartStrategy restartStrategy, CheckpointStorage storage, JobMetrics metrics) {
        this.jobName = jobName;
        this.plan = plan;
        this.checkpointConfig = checkpointConfig;
        this.commitRetry = commitRetry;
        this.restartStrategy = restartStrategy;
        this.storage = storage;
        this.metrics = metrics;
    }

    private void runAttempts(RestoredCheckpoint initial) {
        RestoredCheckpoint restorePoint = initial;
        long carriedRead = 0;
        long carriedWritten = 0;
        long carriedDeadLetters = 0;
        try {
            while (true) {
                long first = Math.max(storage.highestId(), restorePoint == null ? 0 : restorePoint.checkpointId()) + 1;
                String attemptId = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
                JobExecution execution = new JobExecution(jobName, plan, checkpointConfig, commitRetry, storage,
                        restorePoint, first, attemptId, maxCommitWait(), metrics, history);
                // Swapped together, so progress never counts the finished attempt twice.
                readBefore = carriedRead;
                writtenBefore = carriedWritten;
                deadLettersBefore = carriedDeadLetters;
                current = execution;
                started.complete(null);
                if (cancelled) {
                    execution.cancel();
                }
                JobExecution.Outcome outcome = execution.run();
                long read = readBefore + execution.recordsRead();
                long written = writtenBefore + execution.recordsWritten();
                long deadLetters = deadLettersBefore + execution.deadLetters();
                CheckpointLocation last = execution.lastCompletedCheckpoint();
                if (last != null) {
                    restorePoint = CheckpointStorage.load(last);
                }
                CheckpointLocation lastDir = restorePoint == null ? null : restorePoint.directory();
                if (outcome == JobExecution.Outcome.FINISHED || outcome == JobExecution.Outcome.CANCELLED) {
                    result.complete(new JobResult(jobName, outcome == JobExecution.Outcome.FINISHED
                            ? JobResult.Status.FINISHED : JobResult.Status.CANCELLED, read, written, deadLetters, lastDir,
                            restarts));
                    return;
                }
                Throwable cause = execution.failure();
                if (cancelled || !restartStrategy.allowRestart(System.currentTimeMillis())) {
                    result.completeExceptionally(new JobExecutionException("job " + jobName + " failed: "
                            + cause.getMessage(), cause));
                    return;
                }
                carriedRead = read;
                carriedWritten = written;
                carriedDeadLetters = deadLetters;
                restarts++;
                metrics.restarted();
                LOG.warn("Job {} restarting (restart {}) from {} in {} ms", jobName, restarts,
                        lastDir == null ? "the beginning" : lastDir, restartStrategy.delay().toMillis());
                Thread.sleep(restartStrategy.delay().toMillis());
            }
        } catch (Throwable t) {
            started.complete(null);
            result.completeExceptionally(t instanceof JobExecutionException ? t
                    : new JobExecutionException("job " + jobName + " failed: " + t, t));
        }
    }

    /**
     * What sinks see as {@code SinkContext.maxCommitWait()}: the checkpoint timeout (a
     * pre-committed transaction waits at most that long for its checkpoint to complete or fail)
     * plus the restart strategy's delays; empty when restarts are unbounded.
     */
    private java.util.Optional<java.time.Duration> maxCommitWait() {
        return restartStrategy.longestRecovery().map(recovery -> checkpointConfig.timeout().plus(recovery));
    }

    public String jobName() {
        return jobName;
    }

    /** Where this job's checkpoints and savepoints go. */
    public CheckpointLocation jobDirectory() {
        return storage.jobDirectory();
    }

    /** Completes with the result, or exceptionally with a {@link JobExecutionException}. */
    public CompletableFuture<JobResult> result() {
        return result;
    }

    /** Takes a savepoint; with {@code stop} the job finishes after it. Completes with its directory. */
    public CompletableFuture<CheckpointLocation> triggerSavepoint(boolean stop) {
        started.join();
        JobExecution execution = current;
        if (execution == null || result.isDone()) {
            return CompletableFuture.failedFuture(new IllegalStateException("job " + jobName + " is not running"));
        }
        return execution.triggerSavepoint(stop);
    }

    /** Stops the job without a final checkpoint. */
    public void cancel() {
        cancelled = true;
        JobExecution execution = current;
        if (execution != null) {
            execution.cancel();
        }
    }

    /** The registry that holds this job's meters (see {@link JobMetrics}). */
    public MeterRegistry meterRegistry() {
        return metrics.registry();
    }

    /** The job's recent checkpoints and savepoints, across restarts. */
    public CheckpointHistory checkpointHistory() {
        return history;
    }

    public JobProgress progress() {
        JobExecution execution = current;
        JobProgress.Status status = !result.isDone() ? JobProgress.Status.RUNNING
                : result.isCompletedExceptionally() ? JobProgress.Status.FAILED
                : result.join().status() == JobResult.Status.FINISHED ? JobProgress.Status.FINISHED
                : JobProgress.Status.CANCELLED;
        if (execution == null) {
            return new JobProgress(jobName, status, 0, 0, 0, history.latest(), restarts);
        }
        return new JobProgress(jobName, status, readBefore + execution.recordsRead(),
                writtenBefore + execution.recordsWritten(), deadLettersBefore + execution.deadLetters(),
                history.latest(), restarts);
    }
}
