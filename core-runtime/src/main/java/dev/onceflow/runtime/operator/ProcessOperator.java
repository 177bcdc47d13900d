package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.api.ProcessFunction;
import dev.onceflow.runtime.state.ListState;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.VersionedValues;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs a {@link ProcessFunction} with its operator state: list state goes into the snapshot's list
 * shape (spread round robin on rescaling), union list state into its union shape (all of it to
 * every subtask).
 */
public final class ProcessOperator<IN, OUT> extends StreamOperator<IN> implements ProcessFunction.OperatorStateContext {

    private final ProcessFunction<IN, OUT> function;
    private final Map<String, Registered<?>> lists = new LinkedHashMap<>();
    private final Map<String, Registered<?>> unions = new LinkedHashMap<>();
    private RestoredState restored;

    public ProcessOperator(ProcessFunction<IN, OUT> function) {
        this.function = function;
    }

    @Override
    public void initializeState(RestoredState state) {
        restored = state;
    }

    @Override
    public void open() throws Exception {
        function.open(this);
    }

    @Override
    public void processElement(IN record) throws Exception {
        function.processElement(record, output::collect);
    }

    @Override
    public OperatorSnapshot snapshotState(long checkpointId) throws Exception {
        function.snapshotState(checkpointId);
        return new OperatorSnapshot(serialize(lists), Map.of(), new TreeMap<>(), serialize(unions));
    }

    private static Map<String, List<byte[]>> serialize(Map<String, Registered<?>> states) throws Exception {
        Map<String, List<byte[]>> result = new LinkedHashMap<>();
        for (Map.Entry<String, Registered<?>> entry : states.entrySet()) {
            List<byte[]> values = entry.getValue().serialize();
            if (!values.isEmpty()) {
                result.put(entry.getKey(), values);
            }
        }
        return result;
    }

    @Override
    public void close() throws Exception {
        function.close();
    }

    @Override
    public void cancel() {
        try {
            function.close();
        } catch (Exception ignored) {
            // the job is failing already; the original failure is what matters
        }
    }

    @Override
    public int subtaskIndex() {
        return context.subtaskIndex();
    }

    @Override
    public int parallelism() {
        return context.parallelism();
    }

    @Override
    public boolean isRestored() {
        return restored.isRestored();
    }

    @Override
    public <T> ListState<T> getListState(StateDescriptor.List<T> descriptor) {
        return register(descriptor, lists, unions, restored.list(descriptor.name()), "union list state");
    }

    @Override
    public <T> ListState<T> getUnionListState(StateDescriptor.List<T> descriptor) {
        return register(descriptor, unions, lists, restored.unionList(descriptor.name()), "list state");
    }

    @SuppressWarnings("unchecked")
    private static <T> ListState<T> register(StateDescriptor.List<T> descriptor, Map<String, Registered<?>> kind,
            Map<String, Registered<?>> otherKind, List<byte[]> restoredValues, String otherName) {
        if (otherKind.containsKey(descriptor.name())) {
            throw new IllegalArgumentException("operator state '" + descriptor.name() + "' is already registered as "
                    + otherName);
        }
        Registered<?> existing = kind.get(descriptor.name());
        if (existing != null) {
            return (ListState<T>) existing;
        }
        Registered<T> state = new Registered<>(descriptor);
        try {
            for (byte[] bytes : restoredValues) {
                state.values.add(VersionedValues.read(descriptor.elementSerializer(), bytes));
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot restore operator state '" + descriptor.name() + "': " + e.getMessage(),
                    e);
        }
        kind.put(descriptor.name(), state);
        return state;
    }

    /** One list of operator state, on the heap; serialized element by element at each snapshot. */
    private static final class Registered<T> implements ListState<T> {
        private final StateDescriptor.List<T> descriptor;
        private final List<T> values = new ArrayList<>();

        Registered(StateDescriptor.List<T> descriptor) {
            this.descriptor = descriptor;
        }

        @Override
        public List<T> get() {
            return Collections.unmodifiableList(values);
        }

        @Override
        public void add(T value) {
            values.add(value);
        }

        @Override
        public void update(List<T> newValues) {
            values.clear();
            values.addAll(newValues);
        }

        @Override
        public void clear() {
            values.clear();
        }

        List<byte[]> serialize() throws java.io.IOException {
            List<byte[]> result = new ArrayList<>(values.size());
            for (T value : values) {
                result.add(VersionedValues.write(descriptor.elementSerializer(), value));
            }
            return result;
        }
    }
}
