package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.api.BroadcastProcessFunction;
import dev.onceflow.runtime.api.KeyedBroadcastProcessFunction;
import dev.onceflow.runtime.state.BroadcastState;
import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.task.StreamElement;
import java.util.List;

/**
 * What the two broadcast operators share: a second, broadcast input whose records may change the
 * operator's {@link BroadcastStates}, and the step's watermark, the lower of its two inputs'.
 */
abstract class BroadcastInputOperator<IN, B> extends TwoInputStreamOperator<IN, B> {

    private final List<StateDescriptor.Map<?, ?>> descriptors;
    /** The context of a broadcast record, for either kind of function. */
    protected final WritableContext broadcastContext = new WritableContext();
    protected BroadcastStates states;
    protected RestoredState restored;
    protected long watermark = StreamElement.NO_TIMESTAMP;

    BroadcastInputOperator(List<StateDescriptor.Map<?, ?>> descriptors) {
        this.descriptors = List.copyOf(descriptors);
    }

    @Override
    public void initializeState(RestoredState state) throws Exception {
        restored = state;
        states = new BroadcastStates(context.uid(), descriptors, state);
    }

    /** Event time of the step reached {@code value}; the watermark goes on from here. */
    @Override
    public void processWatermark(long value) throws Exception {
        watermark = value;
        output.emitWatermark(value);
    }

    /** A broadcast record's context: no key, the broadcast states writable. */
    protected final class WritableContext implements BroadcastProcessFunction.Context,
            KeyedBroadcastProcessFunction.Context {
        @Override
        public long timestamp() {
            return context.time().timestamp();
        }

        @Override
        public long currentWatermark() {
            return watermark;
        }

        @Override
        public <K, V> BroadcastState<K, V> getBroadcastState(StateDescriptor.Map<K, V> descriptor) {
            return states.writable(descriptor);
        }
    }
}
