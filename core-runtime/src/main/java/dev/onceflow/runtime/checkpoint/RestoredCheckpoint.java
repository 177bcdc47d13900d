package dev.onceflow.runtime.checkpoint;

import dev.onceflow.runtime.state.NativeKeyedState;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.runtime.state.SharedStateStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * A validated checkpoint or savepoint that hands each new operator instance
 * its share of the state: the same share at unchanged parallelism, a redistributed one otherwise
 * (see {@link OperatorSnapshot} for the three distribution rules). Operator lists are in memory;
 * key groups stay in their state files until a backend reads them ({@link StoredKeyGroups}).
 */
public final class RestoredCheckpoint {

    private final CheckpointLocation directory;
    private final CheckpointMetadata metadata;
    /** The shared files of the job directory the checkpoint is in. */
    private final SharedStateStore sharedState;
    /** Operator uid -> former subtask -> snapshot. */
    private final Map<String, TreeMap<Integer, OperatorSnapshot>> byOperator = new LinkedHashMap<>();
    private final Map<String, Integer> parallelismByOperator = new HashMap<>();

    RestoredCheckpoint(CheckpointLocation directory, CheckpointMetadata metadata, List<TaskState> tasks,
            SharedStateStore sharedState) {
        this.sharedState = sharedState;
        this.directory = directory;
        this.metadata = metadata;
        for (TaskState task : tasks) {
            for (Map.Entry<String, OperatorSnapshot> entry : task.operators().entrySet()) {
                byOperator.computeIfAbsent(entry.getKey(), k -> new TreeMap<>()).put(task.ref().subtask(), entry.getValue());
                parallelismByOperator.put(entry.getKey(), task.ref().parallelism());
            }
        }
    }

    public CheckpointLocation directory() {
        return directory;
    }

    public CheckpointMetadata metadata() {
        return metadata;
    }

    public long checkpointId() {
        return metadata.checkpointId();
    }

    /** Uids of operators that have state in this checkpoint. */
    public Set<String> operatorUids() {
        return byOperator.keySet();
    }

    /** The serialized enumerator state of a source, if the checkpoint has one. */
    public Optional<CheckpointMetadata.EnumeratorStateRef> enumeratorState(String sourceUid) {
        return metadata.enumerators().stream().filter(e -> e.sourceUid().equals(sourceUid)).findFirst();
    }

    /** The state of operator {@code uid} for new subtask {@code subtask} of {@code parallelism}. */
    public RestoredState stateFor(String uid, int subtask, int parallelism) {
        OptionalLong id = OptionalLong.of(metadata.checkpointId());
        TreeMap<Integer, OperatorSnapshot> former = byOperator.get(uid);
        if (former == null) {
            return new RestoredState(id, parallelism, Map.of(), Map.of(), Map.of());
        }
        int previous = parallelismByOperator.get(uid);
        Map<String, List<byte[]>> lists = new LinkedHashMap<>();
        Map<String, List<byte[]>> subtaskLists = new LinkedHashMap<>();
        StoredKeyGroups.Builder keyed = new StoredKeyGroups.Builder();
        List<NativeKeyedState> natives = new ArrayList<>();
        if (previous == parallelism) {
            OperatorSnapshot own = former.get(subtask);
            if (own != null) {
                lists.putAll(own.listState());
            }
        } else {
            // Spread every former entry round robin, so splits end up evenly over the new readers.
            Map<String, Integer> position = new HashMap<>();
            for (OperatorSnapshot snapshot : former.values()) {
                for (Map.Entry<String, List<byte[]>> entry : snapshot.listState().entrySet()) {
                    for (byte[] value : entry.getValue()) {
                        int index = position.merge(entry.getKey(), 1, Integer::sum) - 1;
                        if (index % parallelism == subtask) {
                            lists.computeIfAbsent(entry.getKey(), k -> new ArrayList<>()).add(value);
                        }
                    }
                }
            }
        }
        Map<String, List<byte[]>> union = new LinkedHashMap<>();
        for (Map.Entry<Integer, OperatorSnapshot> entry : former.entrySet()) {
            if (entry.getKey() % parallelism == subtask) {
                entry.getValue().subtaskState().forEach((name, values) ->
                        subtaskLists.computeIfAbsent(name, k -> new ArrayList<>()).addAll(values));
            }
            keyed.putAll(entry.getValue().keyedState());
            if (entry.getValue().nativeKeyedState() != null) {
                natives.add(entry.getValue().nativeKeyedState());
            }
            // Former subtasks in order, so every new subtask sees the same list.
            entry.getValue().unionState().forEach((name, values) ->
                    union.computeIfAbsent(name, k -> new ArrayList<>()).addAll(values));
        }
        return new RestoredState(id, previous, lists, subtaskLists, keyed.build(), union, natives, sharedState);
    }

    /** One task's state file, decoded. */
    record TaskState(CheckpointMetadata.TaskStateRef ref, Map<String, OperatorSnapshot> operators) {
    }
}
