package dev.onceflow.runtime.execution;

import dev.onceflow.runtime.checkpoint.CheckpointStats;

/**
 * A running job's counters, for the CLI and the status endpoint.
 *
 * @param lastCheckpoint the most recent checkpoint that completed or failed, or {@code null}
 */
public record JobProgress(String jobName, long recordsRead, long recordsWritten, CheckpointStats lastCheckpoint,
        int restarts) {
}
