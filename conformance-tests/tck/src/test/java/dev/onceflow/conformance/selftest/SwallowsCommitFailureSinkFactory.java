package dev.onceflow.conformance.selftest;

import dev.onceflow.conformance.CommitFailureSinkFactory;
import dev.onceflow.conformance.CommitFailures;
import dev.onceflow.connector.filesystem.FileTransaction;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.ForwardingTransactionalWriter;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.nio.file.Path;

/**
 * Breaks 2PC-3: its external system's commits fail as the suite's {@link CommitFailures} say
 * (the sink injects them itself, beneath its own error handling), and the writer gives up on a
 * handle whose commit failed, reporting success: the handle is dropped, as a runtime that gives up
 * after one failed attempt would drop it. Its records are lost, and a job whose every commit fails
 * still exits 0.
 */
public final class SwallowsCommitFailureSinkFactory extends BrokenSinkFactory
        implements CommitFailureSinkFactory.InjectsCommitFailures {

    public static final String IDENTIFIER = "broken-swallows-commit-failure";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    protected TransactionalWriter<Event, FileTransaction> breakWriter(TransactionalWriter<Event, FileTransaction> real,
            SinkContext context, Path output) {
        return new ForwardingTransactionalWriter<>(real) {
            @Override
            public void commit(FileTransaction transaction) {
                try {
                    CommitFailures.commit(transaction, () -> real.commit(transaction));
                } catch (Exception e) {
                    // The defect: the failure is logged and the handle forgotten.
                }
            }

            @Override
            public void recoverAndCommit(FileTransaction transaction) {
                try {
                    CommitFailures.recoverAndCommit(transaction, () -> real.recoverAndCommit(transaction));
                } catch (Exception e) {
                    // The same defect in recovery.
                }
            }
        };
    }
}
