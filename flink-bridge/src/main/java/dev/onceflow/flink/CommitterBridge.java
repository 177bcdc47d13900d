package dev.onceflow.flink;

import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import java.io.IOException;
import java.util.Collection;
import org.apache.flink.api.connector.sink2.Committer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the handles of completed checkpoints in Flink's committer task, with a writer of its
 * own that only ever recovers: {@code recoverAndCommit} commits a pre-committed transaction given
 * only its handle, from any process, and succeeds without effect if it was committed already
 * (2PC-4, 2PC-5), which is what Flink's re-commit after a recovery needs.
 */
final class CommitterBridge<IN, TXN> implements Committer<TXN> {

    private static final Logger LOG = LoggerFactory.getLogger(CommitterBridge.class);

    private final TwoPhaseCommitSink<IN, TXN> sink;
    private final SinkContext context;
    private TransactionalWriter<IN, TXN> writer;

    CommitterBridge(TwoPhaseCommitSink<IN, TXN> sink, SinkContext context) {
        this.sink = sink;
        this.context = context;
    }

    @Override
    public void commit(Collection<CommitRequest<TXN>> requests) throws IOException {
        for (CommitRequest<TXN> request : requests) {
            try {
                if (writer == null) {
                    writer = sink.createWriter(context);
                }
                writer.recoverAndCommit(request.getCommittable());
            } catch (Exception e) {
                // Not retried here: Flink would retry at once, without a pause. The job fails,
                // restarts from its checkpoint, and commits the handle again.
                LOG.error("Sink '{}' subtask {}: committing a transaction failed: {}", context.sinkUid(),
                        context.subtaskIndex(), e.toString());
                request.signalFailedWithUnknownReason(e);
            }
        }
    }

    @Override
    public void close() throws Exception {
        if (writer != null) {
            writer.close();
        }
    }
}
