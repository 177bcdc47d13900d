package dev.onceflow.runtime.execution;

import dev.onceflow.runtime.checkpoint.CheckpointStats;

/**
 * A job's counters, for the CLI and the status endpoint.
 *
 * @param deadLetters records the sources could not read and sent to their dead-letter sinks
 * @param lastCheckpoint the most recent checkpoint that completed or failed, or {@code null}
 */
public record JobProgress(String jobName, Status status, long recordsRead, long recordsWritten, long deadLetters,
        CheckpointStats lastCheckpoint, int restarts) {

    /** Where the job is: running (restarts included) until it has a result. */
    public enum Status {
        RUNNING, FINISHED, CANCELLED, FAILED
    }
}
