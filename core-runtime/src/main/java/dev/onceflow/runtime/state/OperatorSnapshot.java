package dev.onceflow.runtime.state;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * The state of one operator in one parallel subtask at one checkpoint, in the three shapes the
 * runtime knows how to redistribute when the parallelism changes.
 *
 * @param listState named lists whose entries are spread evenly over the new subtasks (source
 *     splits). At unchanged parallelism every subtask gets its own entries back.
 * @param subtaskState named lists that stay together and go to new subtask
 *     {@code former % parallelism} (sink transaction handles: the subtask that cleans up after a
 *     former subtask must also be the one that recovers its transactions)
 * @param keyedState serialized key groups (see {@link KeyedStateFormat})
 * @param unionState named lists of which every new subtask gets all entries of all former
 *     subtasks, whatever the parallelism (a function's union list state)
 * @param nativeKeyedState keyed state in a backend's own format instead of {@code keyedState}, or null
 */
public record OperatorSnapshot(Map<String, List<byte[]>> listState, Map<String, List<byte[]>> subtaskState,
        SortedMap<Integer, byte[]> keyedState, Map<String, List<byte[]>> unionState,
        NativeKeyedState nativeKeyedState) {

    public static final OperatorSnapshot EMPTY = new OperatorSnapshot(Map.of(), Map.of(), new java.util.TreeMap<>());

    /** A snapshot without state in a backend's own format. */
    public OperatorSnapshot(Map<String, List<byte[]>> listState, Map<String, List<byte[]>> subtaskState,
            SortedMap<Integer, byte[]> keyedState, Map<String, List<byte[]>> unionState) {
        this(listState, subtaskState, keyedState, unionState, null);
    }

    /** A snapshot without union state. */
    public OperatorSnapshot(Map<String, List<byte[]>> listState, Map<String, List<byte[]>> subtaskState,
            SortedMap<Integer, byte[]> keyedState) {
        this(listState, subtaskState, keyedState, Map.of(), null);
    }

    public boolean isEmpty() {
        return listState.isEmpty() && subtaskState.isEmpty() && keyedState.isEmpty() && unionState.isEmpty()
                && nativeKeyedState == null;
    }
}
