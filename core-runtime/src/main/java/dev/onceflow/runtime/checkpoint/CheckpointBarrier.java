package dev.onceflow.runtime.checkpoint;

/**
 * The marker that flows with the records and cuts the stream into before and after checkpoint
 * {@code checkpointId}.
 *
 * @param terminal after this snapshot completes the sources stop: the final checkpoint at the end
 *     of bounded input, or a stop-with-savepoint. Sources stop emitting records once they send a
 *     terminal barrier and resume if the checkpoint is aborted.
 */
public record CheckpointBarrier(long checkpointId, long timestamp, CheckpointKind kind, boolean terminal) {
}
