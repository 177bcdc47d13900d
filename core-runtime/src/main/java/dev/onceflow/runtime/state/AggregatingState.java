package dev.onceflow.runtime.state;

/** An accumulator per key that every {@link #add} feeds; {@link #get} returns its result. */
public interface AggregatingState<IN, OUT> {

    /** The aggregate for the current key, or {@code null} if nothing was added. */
    OUT get();

    void add(IN value);

    void clear();
}
