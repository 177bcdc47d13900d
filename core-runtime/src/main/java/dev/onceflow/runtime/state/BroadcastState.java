package dev.onceflow.runtime.state;

/**
 * A map of operator state that every parallel subtask of a broadcast step holds in full and alike:
 * it is changed only by the records of the broadcast input, which every subtask receives.
 *
 * <p>Keep it alike: change it only as a function of the broadcast records themselves (not of the
 * subtask index, the wall clock or the other input), and in a way that does not depend on the
 * order in which records of different broadcast subtasks arrive when the broadcast input has a
 * parallelism above 1. The runtime stores one copy per checkpoint (subtask 0's) and hands it to
 * every subtask on restore, at any parallelism; copies that drifted apart would silently converge
 * on subtask 0's.
 *
 * <p>Values read from it must not be changed in place: put a new object instead.
 */
public interface BroadcastState<K, V> extends ReadOnlyBroadcastState<K, V> {

    void put(K key, V value);

    void remove(K key);

    void clear();
}
