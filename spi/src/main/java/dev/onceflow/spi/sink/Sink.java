package dev.onceflow.spi.sink;

/**
 * A destination for records. Every sink implements exactly one of the consistency contracts
 * below, the one whose promise it keeps; the runtime drives each with its own operator, and the
 * conformance suite judges it by that promise (see {@code docs/spec.md}).
 *
 * <ul>
 *   <li>{@link TwoPhaseCommitSink}: a transaction per checkpoint, pre-committed at the barrier and
 *       committed when the checkpoint completes. Exactly-once when the external system keeps
 *       pre-committed transactions across the writer's death.</li>
 *   <li>{@link GenericWriteAheadSink}: records held in checkpointed state and sent only after the
 *       checkpoint completes; a {@link CheckpointCommitter} remembers what was sent.</li>
 *   <li>{@link AtLeastOnceSink}: writes made durable at every barrier; nothing lost, replayed
 *       records may appear twice. Its refinement {@link IdempotentSink} writes upserts keyed by
 *       deterministic ids, so replays overwrite and the visible result is exactly-once.</li>
 *   <li>{@link BestEffortSink}: no guarantee; records may be lost on a crash.</li>
 * </ul>
 *
 * <p>A sink object is a description and a factory, created once per job; it holds no connections
 * and must be safe to call from several threads. Each parallel subtask gets its own writer.
 *
 * @param <IN> records written
 */
public sealed interface Sink<IN> permits TwoPhaseCommitSink, GenericWriteAheadSink, AtLeastOnceSink,
        BestEffortSink {
}
