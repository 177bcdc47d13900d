package dev.onceflow.runtime.state;

/** How an {@link AggregatingState} folds inputs into an accumulator and produces a result. */
public interface AggregateFunction<IN, ACC, OUT> {

    ACC createAccumulator();

    /** Returns the accumulator with {@code value} added; may modify and return {@code accumulator}. */
    ACC add(IN value, ACC accumulator);

    OUT getResult(ACC accumulator);
}
