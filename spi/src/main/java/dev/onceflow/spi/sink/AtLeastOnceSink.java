package dev.onceflow.spi.sink;

/**
 * A sink without transactions that makes its writes durable at every checkpoint barrier, so a
 * completed checkpoint never covers a record that could still be lost (ALO-1 in
 * {@code docs/spec.md}). It promises nothing about replays: after a crash the source replays the
 * records after the restored checkpoint, and the sink writes them again, so a reader MAY see them
 * twice (ALO-2). The conformance suite checks that nothing is lost, counts the duplicates and
 * reports such a sink as at-least-once, never exactly-once.
 *
 * <p>A sink whose writes are upserts keyed by the record, so that writing a record twice leaves
 * the result of writing it once, implements the refinement {@link IdempotentSink} instead.
 *
 * @param <IN> records written
 */
public non-sealed interface AtLeastOnceSink<IN> extends Sink<IN> {

    /** Creates the writer of one parallel subtask, on its task thread. */
    AtLeastOnceWriter<IN> createWriter(SinkContext context) throws Exception;
}
