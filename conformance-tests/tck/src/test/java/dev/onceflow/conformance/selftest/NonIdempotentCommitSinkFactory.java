package dev.onceflow.conformance.selftest;

import dev.onceflow.connector.filesystem.FileTransaction;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.ForwardingTransactionalWriter;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Breaks 2PC-4: committing a handle whose final file already exists publishes the file again under
 * a new visible name, as a sink would that re-sends a transaction instead of recognising it.
 */
public final class NonIdempotentCommitSinkFactory extends BrokenSinkFactory {

    public static final String IDENTIFIER = "broken-commit-not-idempotent";

    private static final AtomicInteger COPIES = new AtomicInteger();

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    protected TransactionalWriter<Event, FileTransaction> breakWriter(TransactionalWriter<Event, FileTransaction> real,
            SinkContext context, Path output) {
        return new ForwardingTransactionalWriter<>(real) {
            @Override
            public void commit(FileTransaction transaction) throws Exception {
                if (!publishAgainIfCommitted(transaction, output)) {
                    real.commit(transaction);
                }
            }

            @Override
            public void recoverAndCommit(FileTransaction transaction) throws Exception {
                if (!publishAgainIfCommitted(transaction, output)) {
                    real.recoverAndCommit(transaction);
                }
            }
        };
    }

    private static boolean publishAgainIfCommitted(FileTransaction transaction, Path output) throws Exception {
        Path committed = partFile(output, transaction.parts().get(0).finalPath());
        if (transaction.length() == 0 || !Files.exists(committed)) {
            return false;
        }
        Path copy = committed.resolveSibling(committed.getFileName() + ".again-" + ProcessHandle.current().pid()
                + "-" + COPIES.incrementAndGet());
        Files.copy(committed, copy);
        return true;
    }
}
