package dev.onceflow.runtime.task;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.runtime.operator.SourceOperator;
import dev.onceflow.runtime.operator.StreamOperator;
import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.spi.source.InputStatus;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A subtask of the first stage: polls its source reader and handles mail in between. After a
 * terminal barrier it stops polling; once that checkpoint completes it ends its channels.
 */
public final class SourceTask extends Task {

    private final SourceOperator<?, ?> source;
    private boolean endReported;
    /**
     * Records emitted since they were last added to {@link #records}. Counting each record into the
     * volatile field itself cost a memory fence per record: 5 % of a source thread's samples in a
     * profile of datagen into the filesystem sink. Other threads read the count; they may see it up
     * to one poll behind.
     */
    private long uncounted;

    public SourceTask(String stageName, int subtask, int parallelism, List<String> uids, InputGate gate,
            List<StreamOperator<Object>> chain, RecordWriter writer, TaskEnvironment environment,
            Function<String, RestoredState> restoredState, boolean unalignedCheckpoints) {
        super(stageName, subtask, parallelism, uids, gate, chain, writer, environment, restoredState,
                unalignedCheckpoints);
        this.source = (SourceOperator<?, ?>) (StreamOperator<?>) chain.get(0);
    }

    public SourceOperator<?, ?> sourceOperator() {
        return source;
    }

    /** Runs on the task thread (mail from the coordinator). */
    public void triggerCheckpoint(CheckpointBarrier barrier) {
        try {
            performCheckpoint(barrier, 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            throw new ChainException(e);
        }
    }

    @Override
    protected void beforeBarrierForwarded() {
        FaultPoints.reach(FaultPoints.SOURCE_BEFORE_BARRIER);
    }

    @Override
    protected void runLoop() throws Exception {
        try {
            pollUntilEnd();
        } finally {
            // Also when the chain failed: the records emitted before the failure were emitted.
            publishCount();
        }
    }

    private void pollUntilEnd() throws Exception {
        while (!cancelled()) {
            publishCount();
            Runnable mail = gate.takeMail(0, TimeUnit.NANOSECONDS);
            if (mail != null) {
                mail.run();
                continue;
            }
            if (terminalCompleted()) {
                break;
            }
            if (endReported || terminalPending()) {
                flush();
                mail = gate.takeMail(100, TimeUnit.MILLISECONDS);
                if (mail != null) {
                    mail.run();
                }
                continue;
            }
            InputStatus status = source.pollNext();
            source.onPeriodicCheck(System.nanoTime());
            if (status == InputStatus.NOTHING_AVAILABLE) {
                flush();
                mail = gate.takeMail(1, TimeUnit.MILLISECONDS);
                if (mail != null) {
                    mail.run();
                }
            } else if (status == InputStatus.END_OF_INPUT) {
                source.endOfInput();
                flush();
                endReported = true;
                environment.sourceEnded(subtask);
            }
        }
        for (StreamOperator<Object> operator : chain) {
            operator.endInput();
        }
        publishCount();
        if (writer != null) {
            writer.broadcast(StreamElement.EndOfData.INSTANCE);
        }
    }

    /** Counts a record emitted by the reader; on the task thread. */
    public void countRecord() {
        uncounted++;
    }

    private void publishCount() {
        if (uncounted != 0) {
            records += uncounted;
            uncounted = 0;
        }
    }

    private void flush() throws InterruptedException {
        if (writer != null) {
            writer.flushAll();
        }
    }
}
