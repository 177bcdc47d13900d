package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.api.MapFunction;

/** Applies a {@link MapFunction}. */
public final class MapOperator<IN, OUT> extends StreamOperator<IN> {

    private final MapFunction<IN, OUT> function;

    public MapOperator(MapFunction<IN, OUT> function) {
        this.function = function;
    }

    @Override
    public void processElement(IN record) throws Exception {
        output.collect(function.map(record));
    }
}
