package dev.onceflow.runtime.state;

import java.util.Map;

/** A map per key. Scoped to the key of the record being processed. */
public interface MapState<K, V> {

    V get(K key);

    void put(K key, V value);

    void remove(K key);

    boolean contains(K key);

    /** The current key's entries; empty if none. Do not modify. */
    Map<K, V> entries();

    void clear();
}
