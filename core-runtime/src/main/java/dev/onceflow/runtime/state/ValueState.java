package dev.onceflow.runtime.state;

/** One value per key. Scoped to the key of the record being processed. */
public interface ValueState<T> {

    /** The value for the current key, or {@code null} if none. */
    T value();

    void update(T value);

    void clear();
}
