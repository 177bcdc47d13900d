package dev.onceflow.runtime.task;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import dev.onceflow.runtime.checkpoint.CheckpointKind;
import dev.onceflow.runtime.checkpoint.CheckpointMetadata;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.runtime.operator.StreamOperator;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.RestoredState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * One parallel subtask of a stage: a thread that runs the stage's operator chain. Records,
 * barriers, checkpoint notifications and split assignments are all handled on this thread (the
 * mailbox model), so operators and connector code never need locks.
 */
public abstract class Task implements Runnable {

    protected final String stageName;
    protected final int subtask;
    protected final int parallelism;
    protected final List<String> uids;
    protected final InputGate gate;
    protected final List<StreamOperator<Object>> chain;
    protected final RecordWriter writer;
    protected final TaskEnvironment environment;
    private final Function<String, RestoredState> restoredState;
    private final boolean unalignedCheckpoints;
    /** Union entries of records in flight into this task in the restored checkpoint; empty if none. */
    private List<byte[]> restoredInFlight = List.of();

    protected volatile long records;
    private volatile boolean cancelled;
    private long terminalCheckpointId = -1;
    private boolean terminalCompleted;
    private Thread thread;

    protected Task(String stageName, int subtask, int parallelism, List<String> uids, InputGate gate,
            List<StreamOperator<Object>> chain, RecordWriter writer, TaskEnvironment environment,
            Function<String, RestoredState> restoredState, boolean unalignedCheckpoints) {
        this.stageName = stageName;
        this.subtask = subtask;
        this.parallelism = parallelism;
        this.uids = uids;
        this.gate = gate;
        this.chain = chain;
        this.writer = writer;
        this.environment = environment;
        this.restoredState = restoredState;
        this.unalignedCheckpoints = unalignedCheckpoints;
    }

    public String name() {
        return stageName + "[" + subtask + "]";
    }

    public InputGate gate() {
        return gate;
    }

    /** Records this task read (sources) or received (other stages). */
    public long records() {
        return records;
    }

    public void start() {
        thread = new Thread(this, "onceflow-" + name());
        thread.start();
    }

    /** Stops the task thread without closing operators gracefully. */
    public void cancel() {
        cancelled = true;
        if (thread != null) {
            thread.interrupt();
        }
    }

    public void join(long millis) throws InterruptedException {
        if (thread != null) {
            thread.join(millis);
        }
    }

    @Override
    public final void run() {
        boolean graceful = false;
        try {
            for (int i = 0; i < chain.size(); i++) {
                StreamOperator<Object> operator = chain.get(i);
                RestoredState state = restoredState.apply(operator.context().uid());
                if (i > 0 && state.unionState().containsKey(InFlightRecords.STATE_NAME)) {
                    // Only the first operator of a stage receives records from a channel.
                    throw new IllegalStateException("the restored checkpoint holds records in flight into '"
                            + operator.context().uid() + "', which is no longer the first step of its stage;"
                            + " an unaligned checkpoint restores only into a job of the same shape: take a"
                            + " savepoint (always aligned) to change it");
                }
                operator.initializeState(i == 0 ? withoutInFlight(state) : state);
            }
            for (StreamOperator<Object> operator : chain) {
                operator.open();
            }
            runLoop();
            for (StreamOperator<Object> operator : chain) {
                operator.close();
            }
            graceful = true;
        } catch (InterruptedException e) {
            if (!cancelled) {
                environment.fail(e);
            }
        } catch (Throwable t) {
            if (!cancelled) {
                environment.fail(new TaskFailure(name(), t instanceof ChainException c ? c.getCause() : t));
            }
        } finally {
            if (!graceful) {
                for (StreamOperator<Object> operator : chain) {
                    operator.cancel();
                }
            }
            environment.finished(this);
        }
    }

    protected abstract void runLoop() throws Exception;

    /** Keeps the records in flight of a restored unaligned checkpoint for the task; the operator never sees them. */
    private RestoredState withoutInFlight(RestoredState state) {
        if (!state.unionState().containsKey(InFlightRecords.STATE_NAME)) {
            return state;
        }
        restoredInFlight = state.unionList(InFlightRecords.STATE_NAME);
        Map<String, List<byte[]>> union = new LinkedHashMap<>(state.unionState());
        union.remove(InFlightRecords.STATE_NAME);
        return new RestoredState(state.checkpointId(), state.previousParallelism(), state.listState(),
                state.subtaskState(), state.keyedState(), union, state.nativeKeyedState(), state.sharedState());
    }

    /** The union entries of the records in flight into this task that the restored checkpoint holds. */
    protected List<byte[]> restoredInFlight() {
        return restoredInFlight;
    }

    /**
     * Whether {@code barrier} overtakes records: a periodic checkpoint with unaligned checkpoints
     * on. Savepoints stay aligned (they hold no records in flight, so they restore into any job),
     * and so does the final checkpoint: records after it would reach a sink no checkpoint commits.
     */
    protected boolean unaligned(CheckpointBarrier barrier) {
        return unalignedCheckpoints && barrier.kind() == CheckpointKind.CHECKPOINT && !barrier.terminal();
    }

    /**
     * The records in flight into this task for unaligned checkpoint {@code checkpointId}, complete
     * once every channel delivered its barrier; null for a task without input channels.
     */
    protected CompletableFuture<List<List<StreamElement.Records>>> recordedInFlight(long checkpointId) {
        return null;
    }

    /** How this task's records in flight are written; null if there are none. */
    protected InFlightRecords inFlightRecords() {
        return null;
    }

    protected boolean cancelled() {
        return cancelled;
    }

    /**
     * Takes this task's part of a checkpoint: operators prepare (sinks pre-commit), the barrier
     * goes downstream, the chain's state is frozen here on the task thread, and serialized,
     * written and acknowledged off it.
     */
    protected void performCheckpoint(CheckpointBarrier barrier, long alignmentNanos) throws Exception {
        for (StreamOperator<Object> operator : chain) {
            operator.prepareSnapshotPreBarrier(barrier);
        }
        beforeBarrierForwarded();
        boolean unaligned = unaligned(barrier);
        if (writer != null) {
            if (unaligned) {
                writer.broadcastPriority(barrier);
            } else {
                writer.broadcast(new StreamElement.Barrier(barrier));
            }
        }
        Map<String, Callable<OperatorSnapshot>> parts = new LinkedHashMap<>();
        List<CompletableFuture<Void>> beforeAck = new ArrayList<>();
        for (StreamOperator<Object> operator : chain) {
            parts.put(operator.context().uid(), operator.snapshotStateAsync(barrier.checkpointId()));
            CompletableFuture<Void> pending = operator.beforeAcknowledge(barrier.checkpointId());
            if (!pending.isDone() || pending.isCompletedExceptionally()) {
                beforeAck.add(pending);
            }
        }
        if (barrier.terminal()) {
            terminalCheckpointId = barrier.checkpointId();
        }
        long id = barrier.checkpointId();
        CompletableFuture<Void> ready = CompletableFuture.allOf(beforeAck.toArray(CompletableFuture[]::new));
        CompletableFuture<List<List<StreamElement.Records>>> inFlight = unaligned ? recordedInFlight(id) : null;
        Runnable write = () -> {
            CheckpointMetadata.TaskStateRef ref;
            // Key groups a backend wrote to a local file: released whatever happens below.
            List<AutoCloseable> spilled = new ArrayList<>();
            try {
                // The asynchronous part: serializing what the operators froze at the barrier.
                Map<String, OperatorSnapshot> snapshots = new LinkedHashMap<>();
                for (Map.Entry<String, Callable<OperatorSnapshot>> part : parts.entrySet()) {
                    OperatorSnapshot snapshot = part.getValue().call();
                    if (snapshot.keyedState() instanceof AutoCloseable file) {
                        spilled.add(file);
                    }
                    if (!snapshot.isEmpty()) {
                        snapshots.put(part.getKey(), snapshot);
                    }
                }
                if (inFlight != null) {
                    addInFlight(snapshots, inFlightRecords().encode(subtask, inFlight.join()));
                }
                ref = environment.storage().writeTaskState(id, barrier.kind(), stageName, uids, subtask,
                        parallelism, snapshots);
            } catch (Throwable t) {
                environment.decline(id, new Exception(name() + " could not write its state: " + t, t));
                return;
            } finally {
                for (AutoCloseable file : spilled) {
                    try {
                        file.close();
                    } catch (Exception e) {
                        // StoredKeyGroups logs what it cannot delete and does not throw.
                    }
                }
            }
            // The state is written while the operators finish (a sink's data becoming durable); the
            // acknowledgement, which may complete the checkpoint, waits for both.
            ready.whenComplete((ignored, failure) -> {
                if (failure != null) {
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause() : failure;
                    // Not a decline: a pre-committed transaction that cannot be made durable must not
                    // be committed by a later checkpoint either, so this attempt ends here.
                    environment.fail(new TaskFailure(name(), new Exception(
                            "checkpoint " + id + " could not be completed: " + cause, cause)));
                    return;
                }
                FaultPoints.reach(FaultPoints.TASK_AFTER_SNAPSHOT_BEFORE_ACK);
                environment.acknowledge(this, id, ref, alignmentNanos);
            });
        };
        if (inFlight == null) {
            environment.snapshotExecutor().execute(write);
        } else {
            // Written once the last barrier arrived; an aborted checkpoint is not written at all.
            inFlight.whenComplete((records, failure) -> {
                if (failure == null) {
                    environment.snapshotExecutor().execute(write);
                }
            });
        }
    }

    /** Adds the records in flight to the snapshot of the chain's first operator, as its union state. */
    private void addInFlight(Map<String, OperatorSnapshot> snapshots, List<byte[]> entries) {
        if (entries.isEmpty()) {
            return;
        }
        String head = uids.get(0);
        OperatorSnapshot s = snapshots.getOrDefault(head, OperatorSnapshot.EMPTY);
        Map<String, List<byte[]>> union = new LinkedHashMap<>(s.unionState());
        union.put(InFlightRecords.STATE_NAME, entries);
        snapshots.put(head, new OperatorSnapshot(s.listState(), s.subtaskState(), s.keyedState(), union,
                s.nativeKeyedState()));
    }

    /** Hook for sources: the last moment before the barrier is emitted. */
    protected void beforeBarrierForwarded() {
    }

    /** Runs on the task thread (mail). */
    public void notifyCheckpointComplete(long checkpointId) {
        try {
            for (StreamOperator<Object> operator : chain) {
                operator.notifyCheckpointComplete(checkpointId);
            }
            if (terminalCheckpointId >= 0 && checkpointId >= terminalCheckpointId) {
                terminalCompleted = true;
            }
        } catch (Exception e) {
            throw new ChainException(e);
        }
    }

    /** Runs on the task thread (mail). */
    public void notifyCheckpointAborted(long checkpointId) {
        try {
            for (StreamOperator<Object> operator : chain) {
                operator.notifyCheckpointAborted(checkpointId);
            }
            if (checkpointId == terminalCheckpointId) {
                terminalCheckpointId = -1;
            }
        } catch (Exception e) {
            throw new ChainException(e);
        }
    }

    /** Whether the checkpoint after which this task stops has completed and been notified. */
    protected boolean terminalCompleted() {
        return terminalCompleted;
    }

    /** Whether this task sent a terminal barrier that has not completed or aborted yet. */
    protected boolean terminalPending() {
        return terminalCheckpointId >= 0 && !terminalCompleted;
    }

    /** Carries a checked exception out of an operator chain's {@code Output}. */
    public static final class ChainException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public ChainException(Throwable cause) {
            super(cause);
        }
    }

    /** A task failed; names the task. */
    public static final class TaskFailure extends Exception {
        private static final long serialVersionUID = 1L;

        TaskFailure(String task, Throwable cause) {
            super(task + " failed: " + cause, cause);
        }
    }
}
