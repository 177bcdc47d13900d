package dev.onceflow.runtime.checkpoint;

/**
 * What one finished checkpoint cost.
 *
 * @param triggerTimestamp when the coordinator triggered it, in epoch milliseconds
 * @param durationMillis from trigger to completion (or to failure)
 * @param stateBytes the bytes it wrote ({@link CheckpointMetadata#stateSize()}): for an incremental
 *     checkpoint, what changed since its base; 0 if it failed
 * @param fullStateBytes the bytes a restore of it reads ({@link CheckpointMetadata#fullStateSize()});
 *     equal to {@code stateBytes} unless it refers to shared files an earlier checkpoint uploaded
 * @param maxAlignmentMillis the longest time a task held channels for this barrier
 * @param failure why it failed, or {@code null} if it completed
 */
public record CheckpointStats(long checkpointId, CheckpointKind kind, boolean completed, long triggerTimestamp,
        long durationMillis, long stateBytes, long fullStateBytes, long maxAlignmentMillis, String failure) {
}
