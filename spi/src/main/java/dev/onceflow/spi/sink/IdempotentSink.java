package dev.onceflow.spi.sink;

/**
 * A sink whose writes are upserts keyed by a deterministic id, so replaying records after a crash
 * overwrites rather than duplicates. Delivery is at-least-once; the visible result is
 * exactly-once once the replay has caught up (IDEM-1, IDEM-2 in {@code docs/spec.md}).
 *
 * @param <IN> records written
 */
public non-sealed interface IdempotentSink<IN> extends Sink<IN> {

    /** Creates the writer of one parallel subtask, on its task thread. */
    IdempotentWriter<IN> createWriter(SinkContext context) throws Exception;
}
