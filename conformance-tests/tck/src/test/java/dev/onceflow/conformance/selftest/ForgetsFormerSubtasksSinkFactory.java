package dev.onceflow.conformance.selftest;

import dev.onceflow.connector.filesystem.FileTransaction;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import java.nio.file.Path;

/**
 * Breaks 2PC-7 after a scale-down: abortLingering() cleans up only its own subtask index, never
 * the former subtasks it owns ({@code SinkContext.ownsFormerSubtask}), so the lingering
 * transactions of subtasks that no longer exist stay behind. At one parallelism it is correct.
 */
public final class ForgetsFormerSubtasksSinkFactory extends BrokenSinkFactory {

    public static final String IDENTIFIER = "broken-forgets-former-subtasks";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    /**
     * The real writer sees a parallelism of at least the restored one, so that no former subtask
     * maps onto it but its own index.
     */
    @Override
    protected SinkContext realContext(SinkContext context) {
        return new SinkContext(context.jobName(), context.sinkUid(), context.subtaskIndex(),
                Math.max(context.parallelism(), context.restoredParallelism()), context.restoredParallelism(),
                context.restoredCheckpointId(), context.attemptId(), context.maxConcurrentCheckpoints(),
                context.maxCommitWait());
    }

    @Override
    protected TransactionalWriter<Event, FileTransaction> breakWriter(TransactionalWriter<Event, FileTransaction> real,
            SinkContext context, Path output) {
        return real;
    }
}
