package dev.onceflow.spi.sink;

/**
 * A sink that promises nothing on a crash: it writes records as they come and never waits for the
 * external system at a checkpoint barrier, so records still buffered when the process dies are
 * lost, and records replayed after a restore may be written twice (BE-1 in {@code docs/spec.md}).
 * For throughput where loss is acceptable (metrics, samples); its documentation MUST say
 * "records may be lost on a crash". The conformance suite does not claim any guarantee for it.
 *
 * <p>A sink that can make its writes durable at the barrier implements {@link AtLeastOnceSink}.
 *
 * @param <IN> records written
 */
public non-sealed interface BestEffortSink<IN> extends Sink<IN> {

    /** Creates the writer of one parallel subtask, on its task thread. */
    BestEffortWriter<IN> createWriter(SinkContext context) throws Exception;
}
