package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.api.KeySelector;
import dev.onceflow.runtime.api.KeyedProcessFunction;
import dev.onceflow.runtime.state.AggregatingState;
import dev.onceflow.runtime.state.HeapKeyedStateBackend;
import dev.onceflow.runtime.state.ListState;
import dev.onceflow.runtime.state.MapState;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.ReducingState;
import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.util.Map;

/** Runs a {@link KeyedProcessFunction} with heap keyed state, snapshotted per key group. */
public final class KeyedProcessOperator<K, IN, OUT> extends StreamOperator<IN>
        implements KeyedProcessFunction.Context<K>, KeyedProcessFunction.KeyedContext {

    private final KeySelector<IN, K> keySelector;
    private final SimpleVersionedSerializer<K> keySerializer;
    private final KeyedProcessFunction<K, IN, OUT> function;
    private HeapKeyedStateBackend<K> backend;

    public KeyedProcessOperator(KeySelector<IN, K> keySelector, SimpleVersionedSerializer<K> keySerializer,
            KeyedProcessFunction<K, IN, OUT> function) {
        this.keySelector = keySelector;
        this.keySerializer = keySerializer;
        this.function = function;
    }

    @Override
    public void initializeState(RestoredState state) throws Exception {
        backend = new HeapKeyedStateBackend<>(keySerializer, context.maxParallelism(), context.subtaskIndex(),
                context.parallelism());
        backend.restore(state.keyedState());
    }

    @Override
    public void open() throws Exception {
        function.open(this);
    }

    @Override
    public void processElement(IN record) throws Exception {
        backend.setCurrentKey(keySelector.getKey(record));
        function.processElement(record, this, output::collect);
    }

    @Override
    public OperatorSnapshot snapshotState(long checkpointId) throws Exception {
        return new OperatorSnapshot(Map.of(), Map.of(), backend.snapshot());
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
    public K currentKey() {
        return backend.currentKey();
    }

    @Override
    public int subtaskIndex() {
        return context.subtaskIndex();
    }

    @Override
    public <T> ValueState<T> getState(StateDescriptor.Value<T> descriptor) {
        return backend.state(descriptor);
    }

    @Override
    public <T> ListState<T> getState(StateDescriptor.List<T> descriptor) {
        return backend.state(descriptor);
    }

    @Override
    public <UK, UV> MapState<UK, UV> getState(StateDescriptor.Map<UK, UV> descriptor) {
        return backend.state(descriptor);
    }

    @Override
    public <T> ReducingState<T> getState(StateDescriptor.Reducing<T> descriptor) {
        return backend.state(descriptor);
    }

    @Override
    public <IN2, ACC, OUT2> AggregatingState<IN2, OUT2> getState(StateDescriptor.Aggregating<IN2, ACC, OUT2> descriptor) {
        return backend.state(descriptor);
    }
}
