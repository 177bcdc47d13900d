package dev.onceflow.runtime.api;

/**
 * Extracts the key of a record for {@code keyBy}. Must be deterministic, and the key's
 * {@code hashCode} stable across JVMs (String, Long, Integer, records of those), because the key
 * group a key lands in must be the same after a restore.
 */
@FunctionalInterface
public interface KeySelector<T, K> {

    K getKey(T value) throws Exception;
}
