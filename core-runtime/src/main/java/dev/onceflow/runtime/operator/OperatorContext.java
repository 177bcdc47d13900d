package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.config.CheckpointingMode;
import dev.onceflow.runtime.config.CommitRetry;
import dev.onceflow.runtime.state.SharedStateStore;
import dev.onceflow.runtime.state.StateBackend;
import java.time.Duration;
import java.util.Optional;

/**
 * Where an operator instance runs.
 *
 * @param firstCheckpointId the id the next checkpoint of this attempt will have at the earliest
 * @param attemptId unique per process attempt (see {@link dev.onceflow.spi.sink.SinkContext#attemptId()})
 * @param maxConcurrentCheckpoints checkpoints the job lets be in flight at once
 * @param taskServices how sources reach the coordinator
 * @param maxCommitWait see {@link dev.onceflow.spi.sink.SinkContext#maxCommitWait()}
 * @param time the task's record timestamps and clock, shared by the operators of one chain
 * @param stateBackend where keyed operators keep their state
 * @param sharedState where incremental keyed snapshots put files shared between checkpoints
 */
public record OperatorContext(String jobName, String uid, String name, int subtaskIndex, int parallelism,
        int maxParallelism, long firstCheckpointId, String attemptId, CheckpointingMode mode,
        int maxConcurrentCheckpoints, CommitRetry commitRetry,
        TaskServices taskServices, Optional<Duration> maxCommitWait, TaskTime time,
        StateBackend stateBackend, SharedStateStore sharedState) {

    /** Calls from an operator to the rest of the job. */
    public interface TaskServices {

        /** A source reader asks its enumerator for splits. */
        void requestSplit(String sourceUid, int subtask);

        /** A source reader came up; its enumerator may now assign it splits. */
        void registerReader(String sourceUid, int subtask);

        /** A keyed function left out a late record (see {@code KeyedProcessFunction.Context#countLateRecord}). */
        void lateRecord(String operatorUid, int subtask);
    }
}
