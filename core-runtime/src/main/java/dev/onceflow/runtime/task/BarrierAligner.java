package dev.onceflow.runtime.task;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import dev.onceflow.runtime.config.CheckpointingMode;
import dev.onceflow.runtime.fault.FaultPoints;
import java.util.Arrays;

/**
 * Decides when a task with several input channels takes its snapshot.
 *
 * <p>EXACTLY_ONCE aligns: a channel whose barrier {@code n} arrived is blocked until barrier
 * {@code n} arrived on every channel, so no record after the barrier reaches the state before the
 * snapshot. AT_LEAST_ONCE only counts: it keeps reading every channel and snapshots when the last
 * barrier arrives, so the snapshot may include records after the barrier, which a restore replays.
 * A newer barrier cancels an unfinished alignment (its checkpoint was aborted or superseded).
 *
 * <p>When a test has armed a stall ({@link FaultPoints#stallArmed()}), each alignment of a task
 * with several channels is reported with the number of records that arrived behind its first
 * barriers before the last one: held back on blocked channels (aligned) or processed into the
 * snapshot (not aligned). A case that skews barriers on purpose checks that this was not zero,
 * so that it never passes without having tested alignment.
 */
final class BarrierAligner {

    /** What the task does when alignment is done. */
    interface Handler {
        void onAligned(CheckpointBarrier barrier) throws Exception;
    }

    private final InputGate gate;
    private final String task;
    private final boolean align;
    private final boolean[] seen;
    private final boolean[] ended;
    private long currentId = -1;
    private int count;
    private long alignmentStartNanos;
    private long lastAlignmentNanos;
    /** Records processed from channels whose barrier arrived, during the current alignment (reported only). */
    private long processedBehind;

    BarrierAligner(InputGate gate, CheckpointingMode mode, String task) {
        this.gate = gate;
        this.task = task;
        this.align = mode == CheckpointingMode.EXACTLY_ONCE;
        this.seen = new boolean[gate.channelCount()];
        this.ended = new boolean[gate.channelCount()];
    }

    void onBarrier(int channel, CheckpointBarrier barrier, Handler handler) throws Exception {
        long id = barrier.checkpointId();
        if (id < currentId || (id == currentId && (seen[channel] || count == 0))) {
            return; // stale barrier of an aborted or already handled checkpoint
        }
        if (id > currentId) {
            reset();
            currentId = id;
            alignmentStartNanos = System.nanoTime();
        }
        seen[channel] = true;
        count++;
        if (!allArrived()) {
            if (align) {
                gate.block(channel);
            }
            return;
        }
        lastAlignmentNanos = System.nanoTime() - alignmentStartNanos;
        if (FaultPoints.stallArmed() && seen.length > 1) {
            report(id);
        }
        reset();
        count = 0;
        handler.onAligned(barrier);
    }

    /** {@code count} records of {@code channel} are about to be processed. */
    void onRecords(int channel, int count) {
        if (FaultPoints.stallArmed() && this.count > 0 && seen[channel]) {
            processedBehind += count;
        }
    }

    private void report(long id) {
        long held = 0;
        for (int i = 0; i < seen.length; i++) {
            if (seen[i] && align) {
                held += gate.queuedRecords(i);
            }
        }
        FaultPoints.report("checkpoint " + id + " aligned at " + task + " after "
                + java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(lastAlignmentNanos) + " ms: "
                + (held + processedBehind) + " records arrived behind its first barriers (" + held + " held back, "
                + processedBehind + " processed)");
    }

    void onEnd(int channel) {
        // Channels end only after the terminal checkpoint completed, so an end never completes an
        // alignment; it only stops the channel from being waited for.
        ended[channel] = true;
    }

    /** The checkpoint was aborted: stop waiting for its barriers. */
    void abort(long checkpointId) {
        if (checkpointId == currentId && count > 0) {
            reset();
        }
    }

    long lastAlignmentNanos() {
        return lastAlignmentNanos;
    }

    private void reset() {
        Arrays.fill(seen, false);
        count = 0;
        processedBehind = 0;
        if (align) {
            gate.unblockAll();
        }
    }

    /** Every channel delivered the barrier or ended; a channel that did both counts once. */
    private boolean allArrived() {
        for (int i = 0; i < seen.length; i++) {
            if (!seen[i] && !ended[i]) {
                return false;
            }
        }
        return true;
    }
}
