package dev.onceflow.runtime.api;

import dev.onceflow.runtime.graph.Transformation;
import dev.onceflow.runtime.operator.BroadcastProcessOperator;
import java.util.function.Supplier;

/** A stream connected to a broadcast stream, to be processed together by a {@link BroadcastProcessFunction}. */
public final class BroadcastConnectedStream<IN, B> {

    private final StreamEnvironment environment;
    private final Transformation input;
    private final BroadcastStream<B> broadcast;

    BroadcastConnectedStream(StreamEnvironment environment, Transformation input, BroadcastStream<B> broadcast) {
        this.environment = environment;
        this.input = input;
        this.broadcast = broadcast;
    }

    /**
     * Processes both streams in one step with broadcast state. {@code function} is called once per
     * parallel subtask and attempt for a fresh instance. Give the step a {@link DataStream#uid} so its
     * broadcast state is found again after a restart.
     */
    public <R> DataStream<R> process(Supplier<? extends BroadcastProcessFunction<IN, B, R>> function) {
        Transformation t = environment.addTwoInput("broadcast-process", input, new Transformation.Partitioning.Forward(),
                broadcast.input(), new Transformation.Partitioning.Broadcast(),
                () -> new BroadcastProcessOperator<>(function.get(), broadcast.descriptors()));
        return new DataStream<>(environment, t);
    }
}
