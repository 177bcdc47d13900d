package dev.onceflow.runtime.state;

import java.util.List;

/**
 * A list: per key in keyed state (scoped to the key of the record being processed), per parallel
 * subtask in operator state ({@link dev.onceflow.runtime.api.ProcessFunction}).
 */
public interface ListState<T> {

    /** The elements (of the current key, for keyed state), in insertion order; empty if none. Do not modify. */
    List<T> get();

    void add(T value);

    void update(List<T> values);

    void clear();
}
