package dev.onceflow.runtime.api;

/** Keeps the records for which it returns true. */
@FunctionalInterface
public interface FilterFunction<T> {

    boolean filter(T value) throws Exception;
}
