package dev.onceflow.runtime.state;

import java.util.Map;

/**
 * Broadcast state as the records of the non-broadcast input see it: readable, never changed, so
 * every parallel subtask keeps the same contents (see {@link BroadcastState}).
 */
public interface ReadOnlyBroadcastState<K, V> {

    /** The value of {@code key}, or {@code null}. */
    V get(K key);

    boolean contains(K key);

    /** An unmodifiable view of every entry; it changes as the broadcast side changes the state. */
    Map<K, V> entries();
}
