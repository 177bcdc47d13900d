package dev.onceflow.runtime.cli;

import dev.onceflow.runtime.api.Collector;
import dev.onceflow.runtime.api.KeyedProcessFunction;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.Serializers;

/**
 * The {@code count-by-key} step: emits each event with the running count of its key. Because the
 * count is checkpointed state, lost or doubled state after a crash shows up as a wrong count.
 */
public final class CountByKey extends KeyedProcessFunction<String, Event, Event> {

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
