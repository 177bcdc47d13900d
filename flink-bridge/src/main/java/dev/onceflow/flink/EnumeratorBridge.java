package dev.onceflow.flink;

import dev.onceflow.spi.source.SourceSplit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;

/**
 * Runs an Onceflow split enumerator in Flink's source coordinator (its thread is the Onceflow
 * "coordinator thread").
 *
 * <p><b>Failed readers.</b> Onceflow's runtime recreates the enumerator from the checkpoint
 * whenever readers restart, so its enumerators assign each split once per life and announce a
 * reader once. Flink instead keeps the enumerator running, restores the failed readers' splits
 * from the checkpoint, and hands back ({@link #addSplitsBack}) what it assigned them since. The
 * bridge closes that gap itself: it keeps the returned splits and the "no more splits" signals
 * per subtask, and when the restarted reader registers again it reassigns them to it instead of
 * announcing the reader to the enumerator a second time. If nothing was handed back and the
 * enumerator had not signalled it "no more splits", the bridge passes the enumerator one split
 * request for it, in place of a request that may have been lost with the failed reader (a reader
 * given splits back asks by itself when they run out). Split requests still go to the enumerator.
 * Splits and "no more splits" the enumerator gives a reader that is down (not registered with
 * Flink, which would refuse them and fail the whole job) are held the same way until it registers.
 * A checkpoint taken while returned or held splits wait for their reader is refused (Flink
 * retries it): the enumerator's state cannot hold them, and they would otherwise be lost from it.
 */
final class EnumeratorBridge<S extends SourceSplit, E> implements SplitEnumerator<BridgedSplit<S>, E> {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(EnumeratorBridge.class);

    private final SplitEnumeratorContext<BridgedSplit<S>> flink;
    private dev.onceflow.spi.source.SplitEnumerator<S, E> enumerator;
    private final Set<Integer> announced = new HashSet<>();
    private final Set<Integer> noMoreSplits = new HashSet<>();
    private final Map<Integer, List<BridgedSplit<S>>> returned = new HashMap<>();

    EnumeratorBridge(SplitEnumeratorContext<BridgedSplit<S>> flink) {
        this.flink = flink;
    }

    void setEnumerator(dev.onceflow.spi.source.SplitEnumerator<S, E> value) {
        this.enumerator = value;
    }

    /** The Onceflow context the enumerator is created with. */
    dev.onceflow.spi.source.SplitEnumeratorContext<S> onceflowContext() {
        return new dev.onceflow.spi.source.SplitEnumeratorContext<>() {
            @Override
            public int parallelism() {
                return flink.currentParallelism();
            }

            @Override
            public void assignSplits(int subtaskIndex, List<S> splits) {
                List<BridgedSplit<S>> bridged = new ArrayList<>(splits.size());
                splits.forEach(split -> bridged.add(new BridgedSplit<>(split)));
                if (!flink.registeredReaders().containsKey(subtaskIndex)) {
                    // The reader is down (a regional failover the enumerator cannot know of): Flink
                    // would refuse the assignment and fail the whole job. Hold the splits as if
                    // handed back; the reader gets them when it registers.
                    returned.computeIfAbsent(subtaskIndex, s -> new ArrayList<>()).addAll(bridged);
                    return;
                }
                flink.assignSplits(new SplitsAssignment<>(Map.of(subtaskIndex, bridged)));
            }

            @Override
            public void signalNoMoreSplits(int subtaskIndex) {
                noMoreSplits.add(subtaskIndex);
                if (flink.registeredReaders().containsKey(subtaskIndex)) {
                    flink.signalNoMoreSplits(subtaskIndex); // else sent when the reader registers
                }
            }

            @Override
            public void runPeriodically(Runnable action, Duration period) {
                // The callable runs on a worker thread; the handler, which runs the action, on the
                // coordinator thread, where every enumerator call belongs.
                flink.callAsync(() -> null, (ignored, error) -> action.run(), period.toMillis(), period.toMillis());
            }
        };
    }

    @Override
    public void start() {
        enumerator.start();
    }

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        enumerator.handleSplitRequest(subtaskId);
    }

    @Override
    public void addSplitsBack(List<BridgedSplit<S>> splits, int subtaskId) {
        returned.computeIfAbsent(subtaskId, s -> new ArrayList<>()).addAll(splits);
    }

    @Override
    public void addReader(int subtaskId) {
        // What Flink handed back for the reader, and what the enumerator assigned it while it was
        // down (or before it first came up), goes to it first.
        List<BridgedSplit<S>> splits = returned.remove(subtaskId);
        boolean handedBack = splits != null && !splits.isEmpty();
        if (handedBack) {
            LOG.info("Reader {} registered: assigning the {} splits held for it", subtaskId, splits.size());
            flink.assignSplits(new SplitsAssignment<>(Map.of(subtaskId, splits)));
        }
        if (announced.add(subtaskId)) {
            boolean toldNoMoreBefore = noMoreSplits.contains(subtaskId);
            enumerator.addReader(subtaskId);
            if (toldNoMoreBefore) {
                flink.signalNoMoreSplits(subtaskId);
            }
            return;
        }
        // A restarted reader: it restored its checkpointed splits and got back what it was assigned since.
        if (noMoreSplits.contains(subtaskId)) {
            flink.signalNoMoreSplits(subtaskId);
        } else if (!handedBack) {
            // A split request the reader sent just before it failed may have gone with it; a reader
            // that restored no splits would then wait for an answer that never comes. Ask on its
            // behalf: a request may come at any time, so an extra one costs at most a split the
            // reader would have asked for anyway. A reader given splits back asks when they run out.
            enumerator.handleSplitRequest(subtaskId);
        }
    }

    @Override
    public E snapshotState(long checkpointId) throws Exception {
        if (returned.values().stream().anyMatch(splits -> !splits.isEmpty())) {
            throw new IllegalStateException("checkpoint " + checkpointId + " refused: splits of restarted readers "
                    + returned.keySet() + " wait to be reassigned, and the enumerator's state cannot hold them");
        }
        return enumerator.snapshotState(checkpointId);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        enumerator.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        enumerator.notifyCheckpointAborted(checkpointId);
    }

    @Override
    public void close() throws java.io.IOException {
        try {
            enumerator.close();
        } catch (java.io.IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new java.io.IOException("closing the split enumerator failed: " + e, e);
        }
    }
}
