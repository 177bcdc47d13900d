package dev.onceflow.conformance.selftest;

import dev.onceflow.connector.filesystem.FileTransaction;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.ForwardingTransactionalWriter;
import dev.onceflow.spi.sink.PreCommitted;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.nio.file.Path;

/**
 * Breaks 2PC-1: pre-commit also commits, so data is visible before its checkpoint completes. The
 * later real commit finds the final file and succeeds, so without crashes the output is right.
 */
public final class CommitAtPreCommitSinkFactory extends BrokenSinkFactory {

    public static final String IDENTIFIER = "broken-commit-at-precommit";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    protected TransactionalWriter<Event, FileTransaction> breakWriter(TransactionalWriter<Event, FileTransaction> real,
            SinkContext context, Path output) {
        return new ForwardingTransactionalWriter<>(real) {
            /** The runtime's entry point to pre-commit: the defect must be there, not only in preCommit. */
            @Override
            public PreCommitted<FileTransaction> preCommitAsync(FileTransaction transaction) throws Exception {
                FileTransaction preCommitted = real.preCommitAsync(transaction).awaitDurable();
                real.commit(preCommitted);
                return PreCommitted.durable(preCommitted);
            }

            @Override
            public FileTransaction preCommit(FileTransaction transaction) throws Exception {
                return preCommitAsync(transaction).awaitDurable();
            }
        };
    }
}
