package dev.onceflow.runtime.execution;

import dev.onceflow.runtime.api.Collector;
import dev.onceflow.runtime.api.ProcessFunction;
import dev.onceflow.runtime.state.ListState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.Serializers;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts the records of its subtask, restored counts included, into operator list state
 * ({@code count}) and union list state ({@code all-counts}, entries {@code subtask-<i>=<count>}),
 * and reports what each subtask found in both when it was restored. The golden savepoints of
 * {@link GoldenStateKindsJob} hold this state: do not change the state names or encodings.
 */
final class CountPerSubtask extends ProcessFunction<Event, Event> {

    /** Subtask -> the list state it found when restored, in this JVM. */
    static final Map<Integer, List<Long>> RESTORED_LIST = new ConcurrentHashMap<>();
    /** Subtask -> the union list state it found when restored, in this JVM. */
    static final Map<Integer, List<String>> RESTORED_UNION = new ConcurrentHashMap<>();


    private ListState<Long> counts;
    private ListState<String> all;
    private int subtask;
    private long count;

    @Override
    public void open(OperatorStateContext context) {
        subtask = context.subtaskIndex();
        counts = context.getListState(StateDescriptor.list("count", Serializers.LONG));
        all = context.getUnionListState(StateDescriptor.list("all-counts", Serializers.STRING));
        if (context.isRestored()) {
            RESTORED_LIST.put(subtask, List.copyOf(counts.get()));
            RESTORED_UNION.put(subtask, List.copyOf(all.get()));
        }
        count = counts.get().stream().mapToLong(Long::longValue).sum();
    }

    @Override
    public void processElement(Event event, Collector<Event> out) {
        count++;
        out.collect(event);
    }

    @Override
    public void snapshotState(long checkpointId) {
        counts.update(List.of(count));
        all.update(List.of("subtask-" + subtask + "=" + count));
    }
}
