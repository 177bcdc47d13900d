package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.runtime.state.VersionedValues;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.PreCommitted;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives a {@link TwoPhaseCommitSink}: one transaction per checkpoint interval, pre-committed at
 * the barrier, committed when the checkpoint completes.
 *
 * <p>State (per subtask, so that after rescaling the subtask that owns a former subtask both
 * recovers and cleans up after it): {@code pending}, the pre-committed handles with the id of the
 * checkpoint that pre-committed them, and {@code open}, the transaction begun after the barrier.
 * On restore every pending handle belongs to a completed checkpoint (the restored one or an
 * earlier one), so it is committed; the open one is aborted and its records are replayed.
 */
public final class TwoPhaseCommitSinkOperator<IN, TXN> extends StreamOperator<IN> {

    private static final Logger LOG = LoggerFactory.getLogger(TwoPhaseCommitSinkOperator.class);
    static final String PENDING = "pending";
    static final String OPEN = "open";

    private final TwoPhaseCommitSink<IN, TXN> sink;
    private final SimpleVersionedSerializer<TXN> serializer;
    private final NavigableMap<Long, TXN> pending = new TreeMap<>();
    private TransactionalWriter<IN, TXN> writer;
    private TXN current;
    /**
     * Completes when the transaction of the latest barrier and of every earlier one are durable:
     * chained, so a checkpoint is never acknowledged while an earlier one's transaction may still be
     * lost, whatever order the writer finishes them in.
     */
    private CompletableFuture<Void> durable = DONE;

    public TwoPhaseCommitSinkOperator(TwoPhaseCommitSink<IN, TXN> sink) {
        this.sink = sink;
        this.serializer = sink.transactionSerializer();
    }

    @Override
    public void initializeState(RestoredState state) throws Exception {
        writer = sink.createWriter(SinkContexts.of(context, state));
        // Rule 2PC-5: handles of the restored checkpoint are committed first, oldest first.
        List<Map.Entry<Long, TXN>> restored = new ArrayList<>();
        for (byte[] bytes : state.subtaskList(PENDING)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            long checkpointId = buffer.getLong();
            byte[] handle = new byte[buffer.remaining()];
            buffer.get(handle);
            restored.add(Map.entry(checkpointId, VersionedValues.read(serializer, handle)));
        }
        restored.sort(Map.Entry.comparingByKey());
        for (Map.Entry<Long, TXN> entry : restored) {
            writer.recoverAndCommit(entry.getValue());
            LOG.info("{} subtask {}: recovered and committed the transaction of checkpoint {}", context.uid(),
                    context.subtaskIndex(), entry.getKey());
            FaultPoints.reach(FaultPoints.SINK_DURING_RECOVERY);
        }
        for (byte[] bytes : state.subtaskList(OPEN)) {
            writer.recoverAndAbort(VersionedValues.read(serializer, bytes));
        }
        writer.abortLingering();
    }

    @Override
    public void open() throws Exception {
        current = writer.beginTransaction(context.firstCheckpointId());
    }

    @Override
    public void processElement(IN record) throws Exception {
        writer.write(current, record);
    }

    @Override
    public void prepareSnapshotPreBarrier(CheckpointBarrier barrier) throws Exception {
        FaultPoints.reach(FaultPoints.SINK_BEFORE_PRECOMMIT);
        PreCommitted<TXN> preCommitted = writer.preCommitAsync(current);
        pending.put(barrier.checkpointId(), preCommitted.handle());
        // Rule 2PC-2 holds once the stage completes; with a synchronous writer that is already so,
        // and the fault point is reached here on the task thread, as before.
        durable = durable.thenCombine(preCommitted.durable(), (earlier, latest) -> latest)
                .thenRun(() -> FaultPoints.reach(FaultPoints.SINK_AFTER_PRECOMMIT));
        // Named after the next checkpoint expected; if it is aborted the id may be skipped, which is
        // harmless: ids only have to be unique and greater than every restored one (rule 2PC-8).
        current = writer.beginTransaction(barrier.checkpointId() + 1);
    }

    @Override
    public OperatorSnapshot snapshotState(long checkpointId) throws Exception {
        List<byte[]> pendingBytes = new ArrayList<>(pending.size());
        for (Map.Entry<Long, TXN> entry : pending.entrySet()) {
            byte[] handle = VersionedValues.write(serializer, entry.getValue());
            pendingBytes.add(ByteBuffer.allocate(Long.BYTES + handle.length).putLong(entry.getKey()).put(handle).array());
        }
        return new OperatorSnapshot(Map.of(),
                Map.of(PENDING, pendingBytes, OPEN, List.of(VersionedValues.write(serializer, current))), new TreeMap<>());
    }

    /** The checkpoint's handle is in its snapshot already; its acknowledgement waits for rule 2PC-2. */
    @Override
    public CompletableFuture<Void> beforeAcknowledge(long checkpointId) {
        return durable;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        // Rule CL-1: completion of n covers every earlier checkpoint whose notification was lost.
        Iterator<Map.Entry<Long, TXN>> it = pending.headMap(checkpointId, true).entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Long, TXN> entry = it.next();
            FaultPoints.reach(FaultPoints.SINK_BEFORE_COMMIT);
            // Rule 2PC-3: a handle is only forgotten after its commit succeeded; if retries run out
            // the job fails and the restored checkpoint still holds it.
            context.commitRetry().run(context.uid() + " subtask " + context.subtaskIndex()
                    + ": commit of checkpoint " + entry.getKey(), () -> writer.commit(entry.getValue()));
            FaultPoints.reach(FaultPoints.SINK_MID_COMMIT);
            it.remove();
        }
    }

    @Override
    public void close() throws Exception {
        if (!pending.isEmpty()) {
            throw new IllegalStateException(context.uid() + " subtask " + context.subtaskIndex()
                    + " is closing with uncommitted transactions of checkpoints " + pending.keySet());
        }
        try {
            writer.abort(current);
        } finally {
            writer.close();
        }
    }

    @Override
    public void cancel() {
        if (writer == null) {
            return;
        }
        try {
            if (current != null) {
                writer.abort(current);
            }
        } catch (Exception e) {
            LOG.warn("{} subtask {}: abort of the open transaction failed; abortLingering will clean it up: {}",
                    context.uid(), context.subtaskIndex(), e.toString());
        }
        try {
            writer.close();
        } catch (Exception e) {
            LOG.warn("{} subtask {}: closing the writer failed: {}", context.uid(), context.subtaskIndex(), e.toString());
        }
    }
}
