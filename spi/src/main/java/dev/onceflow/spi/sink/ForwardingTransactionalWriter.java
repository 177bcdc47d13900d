package dev.onceflow.spi.sink;

import java.util.Objects;

/**
 * A {@link TransactionalWriter} that passes every call to another one: the base of wrappers that
 * change some steps of a writer and keep the rest (fault injection, a test's deliberately broken
 * connector, a benchmark's variant).
 *
 * <p>It overrides every method of the interface, the default ones included, so a wrapper keeps
 * what the wrapped writer does for them. A wrapper that implemented the interface itself would
 * silently get the interface's default instead, as two did for {@link #preCommitAsync}, turning
 * the wrapped writer's asynchronous pre-commit into a synchronous one. {@code
 * ForwardingTransactionalWriterTest} fails if a method of the interface, a future one included,
 * is not overridden here.
 *
 * <p>A subclass that changes one step overrides each entry point to it: {@link #preCommitAsync},
 * which the runtime calls, and {@link #preCommit}, which the Flink bridge calls. Caller, thread and
 * order are those of the wrapped writer's methods; this class adds no state and no checks.
 *
 * @param <IN> records written
 * @param <TXN> the transaction handle
 */
public abstract class ForwardingTransactionalWriter<IN, TXN> implements TransactionalWriter<IN, TXN> {

    private final TransactionalWriter<IN, TXN> delegate;

    protected ForwardingTransactionalWriter(TransactionalWriter<IN, TXN> delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The writer every call goes to. */
    protected final TransactionalWriter<IN, TXN> delegate() {
        return delegate;
    }

    @Override
    public TXN beginTransaction(long checkpointId) throws Exception {
        return delegate.beginTransaction(checkpointId);
    }

    @Override
    public void write(TXN transaction, IN record) throws Exception {
        delegate.write(transaction, record);
    }

    @Override
    public TXN preCommit(TXN transaction) throws Exception {
        return delegate.preCommit(transaction);
    }

    @Override
    public PreCommitted<TXN> preCommitAsync(TXN transaction) throws Exception {
        return delegate.preCommitAsync(transaction);
    }

    @Override
    public void commit(TXN transaction) throws Exception {
        delegate.commit(transaction);
    }

    @Override
    public void abort(TXN transaction) throws Exception {
        delegate.abort(transaction);
    }

    @Override
    public void recoverAndCommit(TXN transaction) throws Exception {
        delegate.recoverAndCommit(transaction);
    }

    @Override
    public void recoverAndAbort(TXN transaction) throws Exception {
        delegate.recoverAndAbort(transaction);
    }

    @Override
    public void abortLingering() throws Exception {
        delegate.abortLingering();
    }

    @Override
    public void close() throws Exception {
        delegate.close();
    }
}
