package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.api.FilterFunction;

/** Applies a {@link FilterFunction}. */
public final class FilterOperator<T> extends StreamOperator<T> {

    private final FilterFunction<T> function;

    public FilterOperator(FilterFunction<T> function) {
        this.function = function;
    }

    @Override
    public void processElement(T record) throws Exception {
        if (function.filter(record)) {
            output.collect(record);
        }
    }
}
