package dev.onceflow.runtime.api;

/** Transforms each record into one record. */
@FunctionalInterface
public interface MapFunction<IN, OUT> {

    OUT map(IN value) throws Exception;
}
