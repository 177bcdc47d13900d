package dev.onceflow.connector.datagen;

import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceSplit;
import dev.onceflow.spi.source.SplitEnumeratorContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plays the runtime's coordinator for one enumerator: records assignments and end signals so the
 * test can hand them to readers, as the runtime would before the next barrier.
 */
final class TestEnumeratorContext<S extends SourceSplit> implements SplitEnumeratorContext<S> {

    private final int parallelism;
    private final Map<Integer, List<S>> undelivered = new HashMap<>();
    private final Set<Integer> noMoreSplits = new HashSet<>();
    final List<Runnable> periodicActions = new ArrayList<>();

    TestEnumeratorContext(int parallelism) {
        this.parallelism = parallelism;
    }

    @Override
    public int parallelism() {
        return parallelism;
    }

    @Override
    public void assignSplits(int subtaskIndex, List<S> splits) {
        undelivered.computeIfAbsent(subtaskIndex, i -> new ArrayList<>()).addAll(splits);
    }

    @Override
    public void signalNoMoreSplits(int subtaskIndex) {
        noMoreSplits.add(subtaskIndex);
    }

    @Override
    public void runPeriodically(Runnable action, Duration period) {
        periodicActions.add(action);
    }

    /** Hands everything assigned to {@code subtaskIndex} so far to its reader. */
    void deliverTo(int subtaskIndex, SourceReader<?, S> reader) {
        List<S> splits = undelivered.remove(subtaskIndex);
        if (splits != null) {
            reader.addSplits(splits);
        }
        if (noMoreSplits.remove(subtaskIndex)) {
            reader.notifyNoMoreSplits();
        }
    }
}
