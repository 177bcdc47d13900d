package dev.onceflow.runtime.api;

import dev.onceflow.runtime.graph.Transformation;
import dev.onceflow.runtime.operator.KeyedBroadcastProcessOperator;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.util.function.Supplier;

/** A keyed stream connected to a broadcast stream, to be processed together by a {@link KeyedBroadcastProcessFunction}. */
public final class KeyedBroadcastConnectedStream<T, K, B> {

    private final StreamEnvironment environment;
    private final Transformation input;
    private final KeySelector<T, K> keySelector;
    private final SimpleVersionedSerializer<K> keySerializer;
    private final BroadcastStream<B> broadcast;

    KeyedBroadcastConnectedStream(StreamEnvironment environment, Transformation input, KeySelector<T, K> keySelector,
            SimpleVersionedSerializer<K> keySerializer, BroadcastStream<B> broadcast) {
        this.environment = environment;
        this.input = input;
        this.keySelector = keySelector;
        this.keySerializer = keySerializer;
        this.broadcast = broadcast;
    }

    /**
     * Processes both streams in one step with keyed state, timers and broadcast state.
     * {@code function} is called once per parallel subtask and attempt for a fresh instance. Give the
     * step a {@link DataStream#uid} so its state is found again after a restart.
     */
    @SuppressWarnings("unchecked")
    public <R> DataStream<R> process(Supplier<? extends KeyedBroadcastProcessFunction<K, T, B, R>> function) {
        KeySelector<Object, Object> selector = (KeySelector<Object, Object>) (KeySelector<?, ?>) keySelector;
        Transformation t = environment.addTwoInput("keyed-broadcast-process", input,
                new Transformation.Partitioning.Hash(selector), broadcast.input(),
                new Transformation.Partitioning.Broadcast(),
                () -> new KeyedBroadcastProcessOperator<>(keySelector, keySerializer, function.get(),
                        broadcast.descriptors()));
        return new DataStream<>(environment, t);
    }
}
