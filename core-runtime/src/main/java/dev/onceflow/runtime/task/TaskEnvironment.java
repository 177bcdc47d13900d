package dev.onceflow.runtime.task;

import dev.onceflow.runtime.checkpoint.CheckpointMetadata;
import dev.onceflow.runtime.checkpoint.CheckpointStorage;
import java.util.concurrent.Executor;

/** What a task reports to the job it belongs to. Every call may come from any thread. */
public interface TaskEnvironment {

    /** The task's state for a checkpoint is durably written. */
    void acknowledge(Task task, long checkpointId, CheckpointMetadata.TaskStateRef state, long alignmentNanos);

    /** The task could not snapshot; the checkpoint is aborted, the job goes on. */
    void decline(long checkpointId, Throwable cause);

    /** The task failed; the job fails over. */
    void fail(Throwable cause);

    /** A source task's reader reached the end of its input. */
    void sourceEnded(int subtask);

    /** The task thread exited. */
    void finished(Task task);

    /** Where the asynchronous part of snapshots runs. */
    Executor snapshotExecutor();

    CheckpointStorage storage();
}
