package dev.onceflow.runtime.operator;

/** Where an operator emits records: the next operator of its chain, or the task's channels. */
@FunctionalInterface
public interface Output<T> {

    void collect(T record);
}
