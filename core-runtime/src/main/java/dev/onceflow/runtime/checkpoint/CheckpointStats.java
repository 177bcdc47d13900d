package dev.onceflow.runtime.checkpoint;

/**
 * What one finished checkpoint cost.
 *
 * @param triggerTimestamp when the coordinator triggered it, in epoch milliseconds
 * @param durationMillis from trigger to completion (or to failure)
 * @param stateBytes the total size of its state files; 0 if it failed
 * @param maxAlignmentMillis the longest time a task held channels for this barrier
 * @param failure why it failed, or {@code null} if it completed
 */
public record CheckpointStats(long checkpointId, CheckpointKind kind, boolean completed, long triggerTimestamp,
        long durationMillis, long stateBytes, long maxAlignmentMillis, String failure) {
}
