package dev.onceflow.runtime.api;

import dev.onceflow.runtime.graph.Transformation;
import dev.onceflow.runtime.operator.KeyedProcessOperator;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.util.function.Supplier;

/** A stream partitioned by key: every record of a key reaches the same subtask and its keyed state. */
public final class KeyedStream<T, K> {

    private final StreamEnvironment environment;
    private final Transformation input;
    private final KeySelector<T, K> keySelector;
    private final SimpleVersionedSerializer<K> keySerializer;

    KeyedStream(StreamEnvironment environment, Transformation input, KeySelector<T, K> keySelector,
            SimpleVersionedSerializer<K> keySerializer) {
        this.environment = environment;
        this.input = input;
        this.keySelector = keySelector;
        this.keySerializer = keySerializer;
    }

    /**
     * Processes each key's records with keyed state. {@code function} is called once per parallel
     * subtask (and attempt) for a fresh instance, so the function may keep its state handles in fields.
     */
    @SuppressWarnings("unchecked")
    public <R> DataStream<R> process(Supplier<? extends KeyedProcessFunction<K, T, R>> function) {
        KeySelector<Object, Object> selector = (KeySelector<Object, Object>) (KeySelector<?, ?>) keySelector;
        Transformation t = environment.add(Transformation.Kind.OPERATOR, "process", input,
                new Transformation.Partitioning.Hash(selector),
                () -> new KeyedProcessOperator<>(keySelector, keySerializer, function.get()));
        return new DataStream<>(environment, t);
    }

    /**
     * Connects this keyed stream to a broadcast stream, to process both in one step with keyed
     * state, timers and broadcast state ({@link KeyedBroadcastConnectedStream#process}).
     */
    public <B> KeyedBroadcastConnectedStream<T, K, B> connect(BroadcastStream<B> broadcast) {
        return new KeyedBroadcastConnectedStream<>(environment, input, keySelector, keySerializer, broadcast);
    }
}
