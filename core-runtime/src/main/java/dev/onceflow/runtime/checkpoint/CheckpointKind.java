package dev.onceflow.runtime.checkpoint;

/** What a snapshot is for. Both are taken with the same barriers and drive sinks the same way. */
public enum CheckpointKind {
    /** Periodic, owned by the runtime, pruned to the retained count. */
    CHECKPOINT,
    /** Requested by a user, self-contained and relocatable, never pruned. */
    SAVEPOINT
}
