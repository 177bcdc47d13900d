package dev.onceflow.flink;

import java.io.Serializable;
import java.util.function.Supplier;

/**
 * Creates an Onceflow connector where Flink runs it. Flink ships sources and sinks to its task
 * managers as serialized objects; Onceflow connectors are not serializable (and need not be), so
 * the bridge ships this supplier instead, typically a lambda that builds the connector:
 * {@code () -> DatagenSource.builder().rows(1_000_000).build()}. Whatever it captures must be
 * serializable too.
 */
@FunctionalInterface
public interface SerializableSupplier<T> extends Supplier<T>, Serializable {
}
