package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.spi.sink.SinkContext;

/** Builds the {@link SinkContext} a sink writer sees from where its operator runs. */
final class SinkContexts {

    private SinkContexts() {
    }

    static SinkContext of(OperatorContext context, RestoredState restored) {
        return new SinkContext(context.jobName(), context.uid(), context.subtaskIndex(), context.parallelism(),
                restored.previousParallelism(), restored.checkpointId(), context.attemptId(),
                context.maxConcurrentCheckpoints(), context.maxCommitWait());
    }
}
