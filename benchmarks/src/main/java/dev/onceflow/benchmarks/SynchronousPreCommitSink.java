package dev.onceflow.benchmarks;

import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;

/**
 * A two-phase commit sink whose pre-commit waits on the task thread until the transaction is
 * durable, whatever the wrapped writer's {@link TransactionalWriter#preCommitAsync} would do: the
 * writer's synchronous {@link TransactionalWriter#preCommit} is called through the SPI's default.
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
        TransactionalWriter<IN, TXN> writer = sink.createWriter(context);
        // Every method but preCommitAsync forwards; preCommitAsync keeps the interface's default.
        return new TransactionalWriter<>() {
            @Override
            public TXN beginTransaction(long checkpointId) throws Exception {
                return writer.beginTransaction(checkpointId);
            }

            @Override
            public void write(TXN transaction, IN record) throws Exception {
                writer.write(transaction, record);
            }

            @Override
            public TXN preCommit(TXN transaction) throws Exception {
                return writer.preCommit(transaction);
            }

            @Override
            public void commit(TXN transaction) throws Exception {
                writer.commit(transaction);
            }

            @Override
            public void abort(TXN transaction) throws Exception {
                writer.abort(transaction);
            }

            @Override
            public void recoverAndCommit(TXN transaction) throws Exception {
                writer.recoverAndCommit(transaction);
            }

            @Override
            public void recoverAndAbort(TXN transaction) throws Exception {
                writer.recoverAndAbort(transaction);
            }

            @Override
            public void abortLingering() throws Exception {
                writer.abortLingering();
            }

            @Override
            public void close() throws Exception {
                writer.close();
            }
        };
    }

    @Override
    public SimpleVersionedSerializer<TXN> transactionSerializer() {
        return sink.transactionSerializer();
    }
}
