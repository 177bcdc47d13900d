package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.api.BroadcastProcessFunction;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.ReadOnlyBroadcastState;
import dev.onceflow.runtime.state.StateDescriptor;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs a {@link BroadcastProcessFunction}: the first input is the processed stream, the second the
 * broadcast one, whose function calls may change the {@link BroadcastStates}.
 */
public final class BroadcastProcessOperator<IN, B, OUT> extends BroadcastInputOperator<IN, B> {

    private final BroadcastProcessFunction<IN, B, OUT> function;
    private final OpenView openContext = new OpenView();
    private final ReadOnlyView readOnlyContext = new ReadOnlyView();

    public BroadcastProcessOperator(BroadcastProcessFunction<IN, B, OUT> function,
            List<StateDescriptor.Map<?, ?>> descriptors) {
        super(descriptors);
        this.function = function;
    }

    @Override
    public void open() throws Exception {
        function.open(openContext);
    }

    @Override
    public void processElement(IN record) throws Exception {
        function.processElement(record, readOnlyContext, output::collect);
    }

    @Override
    public void processElement2(B record) throws Exception {
        function.processBroadcastElement(record, broadcastContext, output::collect);
    }

    @Override
    public OperatorSnapshot snapshotState(long checkpointId) throws Exception {
        return new OperatorSnapshot(Map.of(), Map.of(), new TreeMap<>(), states.snapshot(context.subtaskIndex()));
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

    // Contexts: the broadcast record's writes; these two only read.

    private final class OpenView implements BroadcastProcessFunction.OpenContext {
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
        public <K, V> ReadOnlyBroadcastState<K, V> getBroadcastState(StateDescriptor.Map<K, V> descriptor) {
            return states.readOnly(descriptor);
        }
    }

    private final class ReadOnlyView implements BroadcastProcessFunction.ReadOnlyContext {
        @Override
        public long timestamp() {
            return broadcastContext.timestamp();
        }

        @Override
        public long currentWatermark() {
            return watermark;
        }

        @Override
        public <K, V> ReadOnlyBroadcastState<K, V> getBroadcastState(StateDescriptor.Map<K, V> descriptor) {
            return states.readOnly(descriptor);
        }
    }
}
