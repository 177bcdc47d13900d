package dev.onceflow.flink;

import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.OptionalLong;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;

/**
 * An Onceflow transactional writer in a Flink sink task. Flink calls {@link #prepareCommit} at
 * every barrier (after {@link #flush}) and then {@link #snapshotState} with the barrier's
 * checkpoint id, all on the task thread, as Onceflow's runtime calls the writer.
 */
final class WriterBridge<IN, TXN> implements CommittingSinkWriter<IN, TXN>,
        StatefulSinkWriter<IN, OnceflowSink.WriterState> {

    private final TransactionalWriter<IN, TXN> writer;
    private final int parallelism;
    /** The checkpoint whose barrier will pre-commit the next transaction (2PC-8 names it after it). */
    private long nextCheckpointId;
    private TXN open;
    private boolean endOfInput;

    WriterBridge(TwoPhaseCommitSink<IN, TXN> sink, SinkContext context, OptionalLong restoredCheckpointId)
            throws IOException {
        this.parallelism = context.parallelism();
        this.nextCheckpointId = restoredCheckpointId.orElse(0) + 1;
        try {
            this.writer = sink.createWriter(context);
            // Handles of the restored checkpoint are Flink's committer's to commit; everything opened
            // after it is lingering (2PC-7), including the transaction that was open at the barrier.
            writer.abortLingering();
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("creating the Onceflow writer of sink '" + context.sinkUid() + "' failed: " + e, e);
        }
    }

    @Override
    public void write(IN element, Context context) throws IOException, InterruptedException {
        try {
            if (open == null) {
                open = writer.beginTransaction(nextCheckpointId);
            }
            writer.write(open, element);
        } catch (IOException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        }
    }

    @Override
    public void flush(boolean endOfInput) {
        // Pre-commit flushes; a flush without it would make nothing more durable.
        this.endOfInput |= endOfInput;
    }

    @Override
    public Collection<TXN> prepareCommit() throws IOException, InterruptedException {
        if (open == null) {
            return List.of();
        }
        try {
            TXN handle = writer.preCommit(open);
            open = null;
            return List.of(handle);
        } catch (IOException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("pre-commit failed: " + e, e);
        }
    }

    @Override
    public List<OnceflowSink.WriterState> snapshotState(long checkpointId) {
        nextCheckpointId = checkpointId + 1;
        List<OnceflowSink.WriterState> state = new ArrayList<>(1);
        state.add(new OnceflowSink.WriterState(parallelism));
        return state;
    }

    @Override
    public void close() throws Exception {
        try {
            if (open != null) {
                writer.abort(open);
            }
        } finally {
            writer.close();
        }
    }
}
