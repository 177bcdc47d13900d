package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.RestoredState;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * One step of a task's operator chain. Every method runs on the task thread.
 *
 * <p>Life cycle: {@link #setup}, {@link #initializeState} (with the restored share, or a fresh
 * one), {@link #open}; then records, barriers ({@link #prepareSnapshotPreBarrier} before the barrier
 * is forwarded, {@link #snapshotState} after) and notifications; then either {@link #endInput} and
 * {@link #close} (the job finished) or {@link #cancel} (the job failed).
 */
public abstract class StreamOperator<IN> {

    protected OperatorContext context;
    protected Output<Object> output;

    public void setup(OperatorContext operatorContext, Output<Object> downstream) {
        this.context = operatorContext;
        this.output = downstream;
    }

    public OperatorContext context() {
        return context;
    }

    public void initializeState(RestoredState state) throws Exception {
    }

    public void open() throws Exception {
    }

    public abstract void processElement(IN record) throws Exception;

    /**
     * Event time reached {@code watermark}: no record at or below it follows (late ones aside). Runs
     * after every record before the watermark; the default passes it on. An operator that holds
     * event-time work (timers) does it first, then passes the watermark on.
     */
    public void processWatermark(long watermark) throws Exception {
        output.emitWatermark(watermark);
    }

    /** Work that must be done before the barrier leaves this task: flushing, pre-committing. */
    public void prepareSnapshotPreBarrier(CheckpointBarrier barrier) throws Exception {
    }

    /** The synchronous part of a snapshot: a consistent copy of the state at the barrier. */
    public OperatorSnapshot snapshotState(long checkpointId) throws Exception {
        return OperatorSnapshot.EMPTY;
    }

    /**
     * A snapshot in two parts: this call, on the task thread at the barrier, takes a consistent
     * view of the state that later processing does not change; the returned call runs once on a
     * snapshot thread, concurrently with processing, and turns that view into bytes. An operator
     * with much state overrides it so the task is not held up by serialization; the default
     * takes {@link #snapshotState} at once.
     */
    public Callable<OperatorSnapshot> snapshotStateAsync(long checkpointId) throws Exception {
        OperatorSnapshot snapshot = snapshotState(checkpointId);
        return () -> snapshot;
    }

    /**
     * What must be finished, beyond writing the snapshot, before this task acknowledges checkpoint
     * {@code checkpointId}: a sink's pre-committed transaction becoming durable off the task thread.
     * Called on the task thread right after {@link #snapshotState}. The future may complete on any
     * thread; if it completes exceptionally, the job fails.
     */
    public CompletableFuture<Void> beforeAcknowledge(long checkpointId) {
        return DONE;
    }

    /** A completed future for {@link #beforeAcknowledge}; completing it again has no effect. */
    protected static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    public void notifyCheckpointComplete(long checkpointId) throws Exception {
    }

    public void notifyCheckpointAborted(long checkpointId) throws Exception {
    }

    /** Every input ended; emit what is still held. */
    public void endInput() throws Exception {
    }

    /** The job finished: release resources. */
    public void close() throws Exception {
    }

    /** The job failed or was cancelled: release resources quietly; must not throw. */
    public void cancel() {
    }
}
