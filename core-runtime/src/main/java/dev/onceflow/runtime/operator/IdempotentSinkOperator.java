package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.spi.sink.IdempotentSink;
import dev.onceflow.spi.sink.IdempotentWriter;

/** Drives an {@link IdempotentSink}: writes through, flushes at every barrier (rule IDEM-2). */
public final class IdempotentSinkOperator<IN> extends StreamOperator<IN> {

    private final IdempotentSink<IN> sink;
    private IdempotentWriter<IN> writer;

    public IdempotentSinkOperator(IdempotentSink<IN> sink) {
        this.sink = sink;
    }

    @Override
    public void initializeState(RestoredState state) throws Exception {
        writer = sink.createWriter(SinkContexts.of(context, state));
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
