package dev.onceflow.runtime.state;

import dev.onceflow.spi.serialization.SimpleVersionedSerializer;

/** Keyed state in Java objects on the heap (see {@link HeapKeyedStateBackend}): fast, bounded by the heap. */
public final class HeapStateBackend implements StateBackend {

    @Override
    public String name() {
        return "heap";
    }

    @Override
    public <K> KeyedStateBackend<K> createKeyedStateBackend(Scope scope, SimpleVersionedSerializer<K> keySerializer) {
        return new HeapKeyedStateBackend<>(keySerializer, scope.maxParallelism(), scope.subtask(), scope.parallelism());
    }

    @Override
    public String toString() {
        return name();
    }
}
