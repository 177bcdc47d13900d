package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.api.Collector;
import dev.onceflow.runtime.api.KeySelector;
import dev.onceflow.runtime.api.KeyedBroadcastProcessFunction;
import dev.onceflow.runtime.api.KeyedProcessFunction;
import dev.onceflow.runtime.api.TimeDomain;
import dev.onceflow.runtime.api.TimerService;
import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import dev.onceflow.runtime.state.AggregatingState;
import dev.onceflow.runtime.state.ListState;
import dev.onceflow.runtime.state.MapState;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.ReadOnlyBroadcastState;
import dev.onceflow.runtime.state.ReducingState;
import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Runs a {@link KeyedBroadcastProcessFunction}: the keyed input through a
 * {@link KeyedProcessOperator} (keyed state, timers, copy-on-write snapshots on any backend), the
 * broadcast input against {@link BroadcastStates}. A snapshot holds both: the keyed state of the
 * inner operator and, on subtask 0, the broadcast states as union state.
 */
public final class KeyedBroadcastProcessOperator<K, IN, B, OUT> extends BroadcastInputOperator<IN, B> {

    private final KeyedBroadcastProcessFunction<K, IN, B, OUT> function;
    private final KeyedProcessOperator<K, IN, OUT> keyed;

    public KeyedBroadcastProcessOperator(KeySelector<IN, K> keySelector, SimpleVersionedSerializer<K> keySerializer,
            KeyedBroadcastProcessFunction<K, IN, B, OUT> function, List<StateDescriptor.Map<?, ?>> descriptors) {
        super(descriptors);
        this.function = function;
        this.keyed = new KeyedProcessOperator<>(keySelector, keySerializer, new KeyedSide());
    }

    @Override
    public void setup(OperatorContext operatorContext, Output<Object> downstream) {
        super.setup(operatorContext, downstream);
        keyed.setup(operatorContext, downstream);
    }

    @Override
    public void initializeState(RestoredState state) throws Exception {
        super.initializeState(state);
        keyed.initializeState(state);
    }

    @Override
    public void open() throws Exception {
        keyed.open();
    }

    @Override
    public void processElement(IN record) throws Exception {
        keyed.processElement(record);
    }

    @Override
    public void processElement2(B record) throws Exception {
        function.processBroadcastElement(record, broadcastContext, output::collect);
    }

    /** Event-time timers fire in the keyed operator, which then passes the watermark on. */
    @Override
    public void processWatermark(long value) throws Exception {
        watermark = value;
        keyed.processWatermark(value);
    }

    @Override
    public void prepareSnapshotPreBarrier(CheckpointBarrier barrier) throws Exception {
        keyed.prepareSnapshotPreBarrier(barrier);
    }

    @Override
    public OperatorSnapshot snapshotState(long checkpointId) throws Exception {
        return withBroadcastStates(keyed.snapshotState(checkpointId), states.snapshot(context.subtaskIndex()));
    }

    /** The broadcast states are written at the barrier (they are small); the keyed state off the task thread. */
    @Override
    public Callable<OperatorSnapshot> snapshotStateAsync(long checkpointId) throws Exception {
        Map<String, List<byte[]>> union = states.snapshot(context.subtaskIndex());
        Callable<OperatorSnapshot> keyedPart = keyed.snapshotStateAsync(checkpointId);
        return () -> withBroadcastStates(keyedPart.call(), union);
    }

    private static OperatorSnapshot withBroadcastStates(OperatorSnapshot keyedPart, Map<String, List<byte[]>> union) {
        return new OperatorSnapshot(keyedPart.listState(), keyedPart.subtaskState(), keyedPart.keyedState(), union,
                keyedPart.nativeKeyedState());
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        keyed.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        keyed.notifyCheckpointAborted(checkpointId);
    }

    @Override
    public void endInput() throws Exception {
        keyed.endInput();
    }

    @Override
    public void close() throws Exception {
        keyed.close();
    }

    @Override
    public void cancel() {
        keyed.cancel();
    }

    /** The keyed input as the inner operator sees it: a keyed process function over the user's function. */
    private final class KeyedSide extends KeyedProcessFunction<K, IN, OUT> {
        private RecordContext recordContext;
        private RecordContext timerContext;

        @Override
        public void open(KeyedContext keyedContext) throws Exception {
            function.open(new OpenContext(keyedContext));
        }

        @Override
        public void processElement(IN value, Context<K> inner, Collector<OUT> out) throws Exception {
            if (recordContext == null || recordContext.inner != inner) {
                recordContext = new RecordContext(inner, null);
            }
            function.processElement(value, recordContext, out);
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext<K> inner, Collector<OUT> out) throws Exception {
            if (timerContext == null || timerContext.inner != inner) {
                timerContext = new RecordContext(inner, inner);
            }
            function.onTimer(timestamp, timerContext, out);
        }

        @Override
        public void close() throws Exception {
            function.close();
        }
    }

    /** The keyed input's context with read access to the broadcast states. */
    private final class RecordContext implements KeyedBroadcastProcessFunction.OnTimerContext<K> {
        private final KeyedProcessFunction.Context<K> inner;
        private final KeyedProcessFunction.OnTimerContext<K> timer;

        RecordContext(KeyedProcessFunction.Context<K> inner, KeyedProcessFunction.OnTimerContext<K> timer) {
            this.inner = inner;
            this.timer = timer;
        }

        @Override
        public K currentKey() {
            return inner.currentKey();
        }

        @Override
        public long timestamp() {
            return inner.timestamp();
        }

        @Override
        public TimerService timerService() {
            return inner.timerService();
        }

        @Override
        public void countLateRecord() {
            inner.countLateRecord();
        }

        @Override
        public TimeDomain timeDomain() {
            if (timer == null) {
                throw new IllegalStateException("timeDomain() is only known while a timer fires");
            }
            return timer.timeDomain();
        }

        @Override
        public <KB, VB> ReadOnlyBroadcastState<KB, VB> getBroadcastState(StateDescriptor.Map<KB, VB> descriptor) {
            return states.readOnly(descriptor);
        }
    }

    /** Keyed state registration of the inner operator, with read access to the restored broadcast states. */
    private final class OpenContext implements KeyedBroadcastProcessFunction.OpenContext {
        private final KeyedProcessFunction.KeyedContext inner;

        OpenContext(KeyedProcessFunction.KeyedContext inner) {
            this.inner = inner;
        }

        @Override
        public boolean isRestored() {
            return restored.isRestored();
        }

        @Override
        public <KB, VB> ReadOnlyBroadcastState<KB, VB> getBroadcastState(StateDescriptor.Map<KB, VB> descriptor) {
            return states.readOnly(descriptor);
        }

        @Override
        public int subtaskIndex() {
            return inner.subtaskIndex();
        }

        @Override
        public <T> ValueState<T> getState(StateDescriptor.Value<T> descriptor) {
            return inner.getState(descriptor);
        }

        @Override
        public <T> ListState<T> getState(StateDescriptor.List<T> descriptor) {
            return inner.getState(descriptor);
        }

        @Override
        public <UK, UV> MapState<UK, UV> getState(StateDescriptor.Map<UK, UV> descriptor) {
            return inner.getState(descriptor);
        }

        @Override
        public <T> ReducingState<T> getState(StateDescriptor.Reducing<T> descriptor) {
            return inner.getState(descriptor);
        }

        @Override
        public <IN2, ACC, OUT2> AggregatingState<IN2, OUT2> getState(
                StateDescriptor.Aggregating<IN2, ACC, OUT2> descriptor) {
            return inner.getState(descriptor);
        }
    }
}
