package dev.onceflow.runtime.api;

/** Emits records from a user function. */
@FunctionalInterface
public interface Collector<T> {

    void collect(T record);
}
