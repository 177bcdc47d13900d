package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.api.FlatMapFunction;

/** Applies a {@link FlatMapFunction}. */
public final class FlatMapOperator<IN, OUT> extends StreamOperator<IN> {

    private final FlatMapFunction<IN, OUT> function;

    public FlatMapOperator(FlatMapFunction<IN, OUT> function) {
        this.function = function;
    }

    @Override
    public void processElement(IN record) throws Exception {
        function.flatMap(record, output::collect);
    }
}
