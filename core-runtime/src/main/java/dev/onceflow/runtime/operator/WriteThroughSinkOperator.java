package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.spi.sink.AtLeastOnceSink;
import dev.onceflow.spi.sink.AtLeastOnceWriter;
import dev.onceflow.spi.sink.BestEffortSink;
import dev.onceflow.spi.sink.BestEffortWriter;
import dev.onceflow.spi.sink.IdempotentSink;
import dev.onceflow.spi.sink.SinkContext;

/**
 * Drives the sinks without checkpointed state: each record is written through to the writer as it
 * comes. An {@link AtLeastOnceSink} (and so an {@link IdempotentSink}) is flushed at every barrier
 * before the barrier goes on, and at end of input (ALO-1, IDEM-2); a {@link BestEffortSink} is
 * never waited for (BE-1). Whether the result is exactly-once is the sink's contract, not this
 * operator's: it never claims more than at-least-once.
 */
public final class WriteThroughSinkOperator<IN> extends StreamOperator<IN> {

    /** Opens the writer of this subtask; one of the two contracts. */
    @FunctionalInterface
    private interface WriterOpener<IN> {
        Writer<IN> open(SinkContext context) throws Exception;
    }

    /** The calls this operator makes, whichever contract answers them. */
    private interface Writer<IN> {
        void write(IN record) throws Exception;

        /** At a barrier and at end of input. */
        void flush() throws Exception;

        void close() throws Exception;
    }

    private final WriterOpener<IN> opener;
    private Writer<IN> writer;

    private WriteThroughSinkOperator(WriterOpener<IN> opener) {
        this.opener = opener;
    }

    /** Flushes at every barrier and at end of input (ALO-1). */
    public static <IN> WriteThroughSinkOperator<IN> atLeastOnce(AtLeastOnceSink<IN> sink) {
        return new WriteThroughSinkOperator<>(context -> new Flushed<>(sink.createWriter(context)));
    }

    /** Never waits at a barrier: what the writer buffers at a crash is lost (BE-1). */
    public static <IN> WriteThroughSinkOperator<IN> bestEffort(BestEffortSink<IN> sink) {
        return new WriteThroughSinkOperator<>(context -> new NotFlushed<>(sink.createWriter(context)));
    }

    private record Flushed<IN>(AtLeastOnceWriter<IN> writer) implements Writer<IN> {
        @Override
        public void write(IN record) throws Exception {
            writer.write(record);
        }

        @Override
        public void flush() throws Exception {
            writer.flush();
        }

        @Override
        public void close() throws Exception {
            writer.close();
        }
    }

    private record NotFlushed<IN>(BestEffortWriter<IN> writer) implements Writer<IN> {
        @Override
        public void write(IN record) throws Exception {
            writer.write(record);
        }

        @Override
        public void flush() {
            // BE-1: the contract promises nothing at a barrier; close() sends what is left.
        }

        @Override
        public void close() throws Exception {
            writer.close();
        }
    }

    @Override
    public void initializeState(RestoredState state) throws Exception {
        writer = opener.open(SinkContexts.of(context, state));
    }

    @Override
    public void processElement(IN record) throws Exception {
        writer.write(record);
    }

    @Override
    public void prepareSnapshotPreBarrier(CheckpointBarrier barrier) throws Exception {
        writer.flush();
    }

    @Override
    public void endInput() throws Exception {
        writer.flush();
    }

    @Override
    public void close() throws Exception {
        writer.close();
    }

    @Override
    public void cancel() {
        try {
            if (writer != null) {
                writer.close();
            }
        } catch (Exception ignored) {
            // the job is failing already
        }
    }
}
