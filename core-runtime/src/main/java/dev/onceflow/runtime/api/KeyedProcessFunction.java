package dev.onceflow.runtime.api;

import dev.onceflow.runtime.state.AggregatingState;
import dev.onceflow.runtime.state.ListState;
import dev.onceflow.runtime.state.MapState;
import dev.onceflow.runtime.state.ReducingState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;

/**
 * Processes the records of a keyed stream one at a time with state scoped to each record's key.
 * State is checkpointed with the stream, so after a crash it holds exactly the effect of the
 * records before the restored checkpoint. One instance per parallel subtask; called on its task
 * thread only.
 */
public abstract class KeyedProcessFunction<K, IN, OUT> {

    /** Called once before the first record; register state here. */
    public void open(KeyedContext context) throws Exception {
    }

    public abstract void processElement(IN value, Context<K> context, Collector<OUT> out) throws Exception;

    /** Called when the job finishes or fails. */
    public void close() throws Exception {
    }

    /** Per-record context. */
    public interface Context<K> {

        K currentKey();
    }

    /** Registration of keyed state; the returned objects stay valid for the life of the function. */
    public interface KeyedContext {

        int subtaskIndex();

        <T> ValueState<T> getState(StateDescriptor.Value<T> descriptor);

        <T> ListState<T> getState(StateDescriptor.List<T> descriptor);

        <UK, UV> MapState<UK, UV> getState(StateDescriptor.Map<UK, UV> descriptor);

        <T> ReducingState<T> getState(StateDescriptor.Reducing<T> descriptor);

        <IN2, ACC, OUT2> AggregatingState<IN2, OUT2> getState(StateDescriptor.Aggregating<IN2, ACC, OUT2> descriptor);
    }
}
