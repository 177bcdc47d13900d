package dev.onceflow.runtime.api;

/** Transforms each record into zero or more records. */
@FunctionalInterface
public interface FlatMapFunction<IN, OUT> {

    void flatMap(IN value, Collector<OUT> out) throws Exception;
}
