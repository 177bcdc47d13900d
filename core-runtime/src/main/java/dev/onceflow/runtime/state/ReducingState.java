package dev.onceflow.runtime.state;

/** A value per key that every {@link #add} folds a new element into with a reduce function. */
public interface ReducingState<T> {

    /** The reduced value for the current key, or {@code null} if nothing was added. */
    T get();

    void add(T value);

    void clear();
}
