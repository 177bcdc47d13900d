package dev.onceflow.flink;

import dev.onceflow.spi.sink.SinkContext;
import java.io.Serializable;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.apache.flink.api.connector.sink2.InitContext;

/**
 * How a bridged sink makes the Onceflow {@link SinkContext} of a Flink writer or committer: the
 * job name (Flink's, or one given), the sink uid, Flink's subtask, parallelism and restored
 * checkpoint id, and an attempt id unique to the writer instance.
 */
record SinkContexts(String sinkUid, String jobName, int maxConcurrentCheckpoints) implements Serializable {

    SinkContexts {
        Objects.requireNonNull(sinkUid, "sinkUid");
        if (!sinkUid.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("sink uid '" + sinkUid + "' may contain only letters, digits, '.', '_'"
                    + " and '-' (it is part of transaction ids)");
        }
        if (maxConcurrentCheckpoints < 1) {
            throw new IllegalArgumentException("max concurrent checkpoints must be at least 1, was "
                    + maxConcurrentCheckpoints);
        }
    }

    SinkContexts withJobName(String name) {
        return new SinkContexts(sinkUid, Objects.requireNonNull(name, "name"), maxConcurrentCheckpoints);
    }

    SinkContexts withMaxConcurrentCheckpoints(int value) {
        return new SinkContexts(sinkUid, jobName, value);
    }

    /** The context of the writer or committer of {@code context}'s subtask. */
    SinkContext of(InitContext context, int restoredParallelism) {
        String attempt = context.getJobInfo().getJobId() + "-" + context.getTaskInfo().getAttemptNumber() + "-"
                + UUID.randomUUID().toString().substring(0, 8);
        return new SinkContext(jobName != null ? jobName : context.getJobInfo().getJobName(), sinkUid,
                context.getTaskInfo().getIndexOfThisSubtask(), context.getTaskInfo().getNumberOfParallelSubtasks(),
                restoredParallelism, context.getRestoredCheckpointId(), attempt, maxConcurrentCheckpoints,
                Optional.empty());
    }
}
