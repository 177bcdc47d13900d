package dev.onceflow.runtime.state;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * What one operator instance gets back on restore, already redistributed for its subtask.
 *
 * @param checkpointId the restored checkpoint, empty on a fresh start
 * @param previousParallelism the operator's parallelism when the checkpoint was taken
 * @param unionState every entry of every former subtask, by name
 * @param nativeKeyedState every former subtask's keyed state in a backend's own format (incremental
 *     checkpoints), for the keyed backend to pick the key groups it owns from
 * @param sharedState where the files {@code nativeKeyedState} refers to are, or null if it is empty
 */
public record RestoredState(OptionalLong checkpointId, int previousParallelism, Map<String, List<byte[]>> listState,
        Map<String, List<byte[]>> subtaskState, Map<Integer, byte[]> keyedState, Map<String, List<byte[]>> unionState,
        List<NativeKeyedState> nativeKeyedState, SharedStateStore sharedState) {

    /** Restored state without keyed state in a backend's own format. */
    public RestoredState(OptionalLong checkpointId, int previousParallelism, Map<String, List<byte[]>> listState,
            Map<String, List<byte[]>> subtaskState, Map<Integer, byte[]> keyedState,
            Map<String, List<byte[]>> unionState) {
        this(checkpointId, previousParallelism, listState, subtaskState, keyedState, unionState, List.of(), null);
    }

    /** Restored state without union state. */
    public RestoredState(OptionalLong checkpointId, int previousParallelism, Map<String, List<byte[]>> listState,
            Map<String, List<byte[]>> subtaskState, Map<Integer, byte[]> keyedState) {
        this(checkpointId, previousParallelism, listState, subtaskState, keyedState, Map.of());
    }

    public static RestoredState fresh(int parallelism) {
        return new RestoredState(OptionalLong.empty(), parallelism, Map.of(), Map.of(), Map.of());
    }

    public List<byte[]> unionList(String name) {
        return unionState.getOrDefault(name, List.of());
    }

    public boolean isRestored() {
        return checkpointId.isPresent();
    }

    public List<byte[]> list(String name) {
        return listState.getOrDefault(name, List.of());
    }

    public List<byte[]> subtaskList(String name) {
        return subtaskState.getOrDefault(name, List.of());
    }
}
