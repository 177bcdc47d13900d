package dev.onceflow.runtime.execution;

import dev.onceflow.runtime.checkpoint.CheckpointLocation;

/**
 * How a job ended.
 *
 * @param deadLetters records the sources could not read and sent to their dead-letter sinks
 * @param lastCheckpoint the last completed checkpoint or savepoint directory, or {@code null}
 * @param restarts in-process restarts after failures
 */
public record JobResult(String jobName, Status status, long recordsRead, long recordsWritten, long deadLetters,
        CheckpointLocation lastCheckpoint, int restarts) {

    /** Terminal states. */
    public enum Status {
        /** Every source ended (or a stop-with-savepoint completed) and everything was committed. */
        FINISHED,
        /** Cancelled by the user; whatever was pre-committed is committed on the next resume. */
        CANCELLED
    }
}
