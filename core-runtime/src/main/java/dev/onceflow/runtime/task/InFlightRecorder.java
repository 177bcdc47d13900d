package dev.onceflow.runtime.task;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Collects, for each unaligned checkpoint a task has snapshotted but not yet received every
 * barrier of, the records in flight on its channels. Used on the task thread only.
 *
 * <p>The task snapshots at the first barrier of a checkpoint, whichever channel it arrives on. A
 * channel's records in flight are then those sent before the checkpoint's barrier on that channel
 * that the snapshot does not cover: the batches the barrier overtook in the queue, and on channels
 * whose barrier comes later, every batch the task takes from them until it does. Those batches are
 * still processed as usual; a restore processes them again, before anything else, in place of the
 * processing the snapshot did not see. An ended channel has nothing more in flight.
 */
final class InFlightRecorder {

    /** Takes the task's snapshot; the records in flight for it are in {@link #recorded}. */
    interface Snapshotter {
        void snapshot(CheckpointBarrier barrier) throws Exception;
    }

    private static final class Pending {
        final long checkpointId;
        final boolean[] arrived;
        final List<List<StreamElement.Records>> records = new ArrayList<>();
        final CompletableFuture<List<List<StreamElement.Records>>> done = new CompletableFuture<>();

        Pending(long checkpointId, boolean[] ended) {
            this.checkpointId = checkpointId;
            this.arrived = ended.clone();
            for (int i = 0; i < ended.length; i++) {
                records.add(new ArrayList<>());
            }
        }

        boolean allArrived() {
            for (boolean a : arrived) {
                if (!a) {
                    return false;
                }
            }
            return true;
        }
    }

    private final boolean[] ended;
    /** Checkpoints snapshotted and waiting for barriers, oldest first. */
    private final List<Pending> pending = new ArrayList<>();
    private long highestStarted = -1;

    InFlightRecorder(int channelCount) {
        this.ended = new boolean[channelCount];
    }

    /**
     * The barrier of checkpoint {@code barrier.checkpointId()} arrived on {@code channel}, ahead of
     * {@code overtaken}. The first barrier of a checkpoint has {@code snapshotter} snapshot the task.
     * Barriers of checkpoints already completed here or aborted are ignored.
     */
    void onBarrier(int channel, CheckpointBarrier barrier, List<StreamElement.Records> overtaken,
            Snapshotter snapshotter) throws Exception {
        long id = barrier.checkpointId();
        Pending checkpoint = find(id);
        if (checkpoint == null) {
            if (id <= highestStarted) {
                return;
            }
            highestStarted = id;
            checkpoint = new Pending(id, ended);
            pending.add(checkpoint);
            snapshotter.snapshot(barrier);
        }
        if (checkpoint.arrived[channel]) {
            return;
        }
        checkpoint.arrived[channel] = true;
        checkpoint.records.get(channel).addAll(overtaken);
        completeIfAllArrived(checkpoint);
    }

    /**
     * The records in flight for checkpoint {@code checkpointId}, complete once its barrier arrived
     * on every channel; cancelled if it is aborted first. Call from the snapshot it started.
     */
    CompletableFuture<List<List<StreamElement.Records>>> recorded(long checkpointId) {
        Pending checkpoint = find(checkpointId);
        if (checkpoint == null) {
            throw new IllegalStateException("no unaligned checkpoint " + checkpointId + " is being recorded");
        }
        return checkpoint.done;
    }

    /** The task took {@code batch} from {@code channel}. */
    void onRecords(int channel, StreamElement.Records batch) {
        for (int i = 0; i < pending.size(); i++) {
            Pending checkpoint = pending.get(i);
            if (!checkpoint.arrived[channel]) {
                checkpoint.records.get(channel).add(batch);
            }
        }
    }

    /** {@code channel} ended: no barrier will come from it. */
    void onEnd(int channel) {
        ended[channel] = true;
        for (Iterator<Pending> it = new ArrayList<>(pending).iterator(); it.hasNext(); ) {
            Pending checkpoint = it.next();
            checkpoint.arrived[channel] = true;
            completeIfAllArrived(checkpoint);
        }
    }

    /** The checkpoint was aborted: stop recording it; its snapshot is not written. */
    void abort(long checkpointId) {
        Pending checkpoint = find(checkpointId);
        if (checkpoint != null) {
            pending.remove(checkpoint);
            checkpoint.done.cancel(false);
        }
    }

    /** Checkpoints still waiting for a barrier, for tests. */
    int pendingCount() {
        return pending.size();
    }

    private void completeIfAllArrived(Pending checkpoint) {
        if (checkpoint.allArrived()) {
            pending.remove(checkpoint);
            checkpoint.done.complete(checkpoint.records);
        }
    }

    private Pending find(long checkpointId) {
        for (Pending checkpoint : pending) {
            if (checkpoint.checkpointId == checkpointId) {
                return checkpoint;
            }
        }
        return null;
    }
}
