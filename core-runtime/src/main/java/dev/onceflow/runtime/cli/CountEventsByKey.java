package dev.onceflow.runtime.cli;

import dev.onceflow.runtime.api.Collector;
import dev.onceflow.runtime.api.KeyedProcessFunction;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.Serializers;

/**
 * Emits each event with the running count of its key: the {@link CountByKey} step for Java API jobs
 * of {@link Event}s (the runtime's tests and the benchmarks). Because the count is checkpointed
 * state, lost or doubled state after a crash shows up as a wrong count.
 */
public final class CountEventsByKey extends KeyedProcessFunction<String, Event, Event> {

    private ValueState<Long> count;

    @Override
    public void open(KeyedContext context) {
        count = context.getState(StateDescriptor.value("count", Serializers.LONG));
    }

    @Override
    public void processElement(Event value, Context<String> context, Collector<Event> out) {
        Long previous = count.value();
        long next = previous == null ? 1 : previous + 1;
        count.update(next);
        out.collect(value.withCount(next));
    }
}
