package dev.onceflow.runtime.checkpoint;

/**
 * What one finished checkpoint cost.
 *
 * @param maxAlignmentMillis the longest time a task held channels for this barrier
 */
public record CheckpointStats(long checkpointId, CheckpointKind kind, boolean completed, long durationMillis,
        long stateBytes, long maxAlignmentMillis, String failure) {
}
