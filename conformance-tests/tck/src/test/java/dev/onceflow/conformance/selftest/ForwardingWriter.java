package dev.onceflow.conformance.selftest;

import dev.onceflow.connector.filesystem.FileTransaction;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.TransactionalWriter;

/**
 * The real filesystem sink writer, call for call. Each broken sink overrides the one step of the
 * protocol it gets wrong, so the suite has exactly one defect to find.
 */
class ForwardingWriter implements TransactionalWriter<Event, FileTransaction> {

    protected final TransactionalWriter<Event, FileTransaction> real;

    ForwardingWriter(TransactionalWriter<Event, FileTransaction> real) {
        this.real = real;
    }

    @Override
    public FileTransaction beginTransaction(long checkpointId) throws Exception {
        return real.beginTransaction(checkpointId);
    }

    @Override
    public void write(FileTransaction transaction, Event record) throws Exception {
        real.write(transaction, record);
    }

    @Override
    public FileTransaction preCommit(FileTransaction transaction) throws Exception {
        return real.preCommit(transaction);
    }

    @Override
    public void commit(FileTransaction transaction) throws Exception {
        real.commit(transaction);
    }

    @Override
    public void abort(FileTransaction transaction) throws Exception {
        real.abort(transaction);
    }

    @Override
    public void recoverAndCommit(FileTransaction transaction) throws Exception {
        real.recoverAndCommit(transaction);
    }

    @Override
    public void recoverAndAbort(FileTransaction transaction) throws Exception {
        real.recoverAndAbort(transaction);
    }

    @Override
    public void abortLingering() throws Exception {
        real.abortLingering();
    }

    @Override
    public void close() throws Exception {
        real.close();
    }
}
