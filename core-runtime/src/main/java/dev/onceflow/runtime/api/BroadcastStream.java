package dev.onceflow.runtime.api;

import dev.onceflow.runtime.graph.Transformation;
import dev.onceflow.runtime.state.StateDescriptor;
import java.util.List;

/**
 * A stream whose every record reaches every parallel subtask of the step it is connected to, with
 * the broadcast states that step keeps: made by {@link DataStream#broadcast}, consumed by
 * {@link DataStream#connect}.
 */
public final class BroadcastStream<T> {

    private final Transformation input;
    private final List<StateDescriptor.Map<?, ?>> descriptors;

    BroadcastStream(Transformation input, List<StateDescriptor.Map<?, ?>> descriptors) {
        this.input = input;
        this.descriptors = List.copyOf(descriptors);
    }

    Transformation input() {
        return input;
    }

    /** The broadcast states of the step this stream is connected to. */
    public List<StateDescriptor.Map<?, ?>> descriptors() {
        return descriptors;
    }
}
