package dev.onceflow.runtime.checkpoint;

/**
 * The marker that flows with the records and cuts the stream into before and after checkpoint
 * {@code checkpointId}.
 *
 * @param terminal after this snapshot completes the sources stop: the final checkpoint at the end
 *     of bounded input, or a stop-with-savepoint. Sources stop emitting records once they send a
 *     terminal barrier and resume if the checkpoint is aborted.
 * @param lastCompletedCheckpointId the newest checkpoint of this attempt completed when this one
 *     was triggered, or -1: what incremental snapshots may build on, since the coordinator keeps
 *     it until this one is done (a task may hear of later completions only after the barrier)
 */
public record CheckpointBarrier(long checkpointId, long timestamp, CheckpointKind kind, boolean terminal,
        long lastCompletedCheckpointId) {

    /** A barrier with nothing to build on. */
    public CheckpointBarrier(long checkpointId, long timestamp, CheckpointKind kind, boolean terminal) {
        this(checkpointId, timestamp, kind, terminal, -1);
    }
}
