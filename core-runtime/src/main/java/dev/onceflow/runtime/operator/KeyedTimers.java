package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.state.KeyedStateBackend;
import dev.onceflow.runtime.state.ListState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.spi.serialization.Serializers;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The timers of one time domain of a keyed operator. Each key's timer times are keyed list state
 * (sorted, no duplicates), so they are checkpointed, restored and moved on rescaling with the key
 * group exactly like the function's own state; an index by time, rebuilt on restore, finds the
 * ones due.
 */
final class KeyedTimers<K> {

    /** Calls {@code onTimer} for one due timer; the backend's current key is the timer's key. */
    interface Firing<K> {
        void fire(long time, K key) throws Exception;
    }

    private final KeyedStateBackend<K> backend;
    private final ListState<Long> times;
    private final TreeMap<Long, Set<K>> index = new TreeMap<>();

    KeyedTimers(KeyedStateBackend<K> backend, String stateName) {
        this.backend = backend;
        this.times = backend.state(StateDescriptor.list(stateName, Serializers.LONG));
        backend.forEachKey(stateName, key -> {
            backend.setCurrentKey(key);
            for (long time : times.get()) {
                index.computeIfAbsent(time, t -> new LinkedHashSet<>()).add(key);
            }
        });
    }

    /** Registers a timer of the current key; returns whether it is new. */
    boolean register(long time) {
        List<Long> current = times.get();
        int position = Collections.binarySearch(current, time);
        if (position >= 0) {
            return false;
        }
        List<Long> updated = new ArrayList<>(current.size() + 1);
        updated.addAll(current);
        updated.add(-position - 1, time);
        times.update(updated);
        index.computeIfAbsent(time, t -> new LinkedHashSet<>()).add(backend.currentKey());
        return true;
    }

    /** Removes a timer of the current key, if it has one at {@code time}. */
    void delete(long time) {
        if (removeTime(time)) {
            Set<K> keys = index.get(time);
            if (keys != null && keys.remove(backend.currentKey()) && keys.isEmpty()) {
                index.remove(time);
            }
        }
    }

    /** The earliest timer time, or {@link Long#MAX_VALUE} if there is none. */
    long earliest() {
        return index.isEmpty() ? Long.MAX_VALUE : index.firstKey();
    }

    /**
     * Fires every timer at or before {@code time}, earliest first, each once: it is removed from
     * state before {@code firing} runs. Timers that {@code firing} registers at or before
     * {@code time} fire in the same call.
     */
    void fireUpTo(long time, Firing<K> firing) throws Exception {
        while (!index.isEmpty() && index.firstKey() <= time) {
            Map.Entry<Long, Set<K>> due = index.pollFirstEntry();
            long at = due.getKey();
            for (Object key : due.getValue().toArray()) {
                @SuppressWarnings("unchecked")
                K k = (K) key;
                backend.setCurrentKey(k);
                removeTime(at);
                firing.fire(at, k);
            }
        }
    }

    private boolean removeTime(long time) {
        List<Long> current = times.get();
        int position = Collections.binarySearch(current, time);
        if (position < 0) {
            return false;
        }
        List<Long> updated = new ArrayList<>(current);
        updated.remove(position);
        times.update(updated);
        return true;
    }
}
