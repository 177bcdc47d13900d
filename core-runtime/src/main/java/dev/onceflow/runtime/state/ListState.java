package dev.onceflow.runtime.state;

import java.util.List;

/** A list per key. Scoped to the key of the record being processed. */
public interface ListState<T> {

    /** The current key's elements, in insertion order; empty if none. Do not modify. */
    List<T> get();

    void add(T value);

    void update(List<T> values);

    void clear();
}
