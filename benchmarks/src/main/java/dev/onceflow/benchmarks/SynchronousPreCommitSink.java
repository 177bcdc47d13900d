package dev.onceflow.benchmarks;

import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.ForwardingTransactionalWriter;
import dev.onceflow.spi.sink.PreCommitted;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;

/**
 * A two-phase commit sink whose pre-commit waits on the task thread until the transaction is
 * durable, whatever the wrapped writer's {@link TransactionalWriter#preCommitAsync} would do: the
 * writer's synchronous {@link TransactionalWriter#preCommit} is called as the SPI's default does.
 * Benchmarks run it beside the wrapped sink to measure, in the same run, what finishing pre-commit
 * off the task thread gains.
 */
final class SynchronousPreCommitSink<IN, TXN> implements TwoPhaseCommitSink<IN, TXN> {

    private final TwoPhaseCommitSink<IN, TXN> sink;

    SynchronousPreCommitSink(TwoPhaseCommitSink<IN, TXN> sink) {
        this.sink = sink;
    }

    @Override
    public TransactionalWriter<IN, TXN> createWriter(SinkContext context) throws Exception {
        return new ForwardingTransactionalWriter<>(sink.createWriter(context)) {
            /** The interface's default, in place of the wrapped writer's own asynchronous pre-commit. */
            @Override
            public PreCommitted<TXN> preCommitAsync(TXN transaction) throws Exception {
                return PreCommitted.durable(preCommit(transaction));
            }
        };
    }

    @Override
    public SimpleVersionedSerializer<TXN> transactionSerializer() {
        return sink.transactionSerializer();
    }
}
