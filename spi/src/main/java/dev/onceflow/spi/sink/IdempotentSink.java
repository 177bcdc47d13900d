package dev.onceflow.spi.sink;

/**
 * An {@link AtLeastOnceSink} whose writes are upserts keyed by a deterministic id derived from the
 * record, so replaying records after a crash overwrites rather than duplicates. Delivery is
 * at-least-once (ALO-1, ALO-2); the visible result is exactly-once once the replay has caught up
 * (IDEM-1, IDEM-2 in {@code docs/spec.md}). A sink that appends MUST NOT implement this contract:
 * the conformance suite judges it by exactly-once and fails it under IDEM-1.
 *
 * @param <IN> records written
 */
public interface IdempotentSink<IN> extends AtLeastOnceSink<IN> {

    /** Creates the writer of one parallel subtask, on its task thread. */
    @Override
    IdempotentWriter<IN> createWriter(SinkContext context) throws Exception;
}
