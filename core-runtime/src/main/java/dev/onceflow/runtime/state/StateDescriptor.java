package dev.onceflow.runtime.state;

import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.util.Objects;
import java.util.function.BinaryOperator;

/**
 * Names a keyed state and says how its values are written into checkpoints. The name identifies
 * the state within its operator across restarts, so it must not change between job versions.
 * Create with the static factories, e.g. {@code StateDescriptor.value("count", Serializers.LONG)}.
 *
 * <p>Snapshots are taken off the task thread from a copy-on-write view, so serializers must be
 * thread-safe (stateless ones are), and an object stored in or read from a state must not be
 * changed in place afterwards: store a new object instead. Lists, maps and accumulators that the
 * state itself changes are copied when needed.
 */
public sealed interface StateDescriptor permits StateDescriptor.Value, StateDescriptor.List, StateDescriptor.Map,
        StateDescriptor.Reducing, StateDescriptor.Aggregating {

    String name();

    static <T> Value<T> value(String name, SimpleVersionedSerializer<T> serializer) {
        return new Value<>(name, serializer);
    }

    static <T> List<T> list(String name, SimpleVersionedSerializer<T> elementSerializer) {
        return new List<>(name, elementSerializer);
    }

    static <K, V> Map<K, V> map(String name, SimpleVersionedSerializer<K> keySerializer,
            SimpleVersionedSerializer<V> valueSerializer) {
        return new Map<>(name, keySerializer, valueSerializer);
    }

    static <T> Reducing<T> reducing(String name, BinaryOperator<T> reduce, SimpleVersionedSerializer<T> serializer) {
        return new Reducing<>(name, reduce, serializer);
    }

    static <IN, ACC, OUT> Aggregating<IN, ACC, OUT> aggregating(String name, AggregateFunction<IN, ACC, OUT> function,
            SimpleVersionedSerializer<ACC> accumulatorSerializer) {
        return new Aggregating<>(name, function, accumulatorSerializer);
    }

    record Value<T>(String name, SimpleVersionedSerializer<T> serializer) implements StateDescriptor {
        public Value {
            Objects.requireNonNull(name);
            Objects.requireNonNull(serializer);
        }
    }

    record List<T>(String name, SimpleVersionedSerializer<T> elementSerializer) implements StateDescriptor {
        public List {
            Objects.requireNonNull(name);
            Objects.requireNonNull(elementSerializer);
        }
    }

    record Map<K, V>(String name, SimpleVersionedSerializer<K> keySerializer, SimpleVersionedSerializer<V> valueSerializer)
            implements StateDescriptor {
        public Map {
            Objects.requireNonNull(name);
            Objects.requireNonNull(keySerializer);
            Objects.requireNonNull(valueSerializer);
        }
    }

    record Reducing<T>(String name, BinaryOperator<T> reduce, SimpleVersionedSerializer<T> serializer)
            implements StateDescriptor {
        public Reducing {
            Objects.requireNonNull(name);
            Objects.requireNonNull(reduce);
            Objects.requireNonNull(serializer);
        }
    }

    record Aggregating<IN, ACC, OUT>(String name, AggregateFunction<IN, ACC, OUT> function,
            SimpleVersionedSerializer<ACC> accumulatorSerializer) implements StateDescriptor {
        public Aggregating {
            Objects.requireNonNull(name);
            Objects.requireNonNull(function);
            Objects.requireNonNull(accumulatorSerializer);
        }
    }
}
