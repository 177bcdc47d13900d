package dev.onceflow.runtime.operator;

/**
 * An operator with two inputs, first in its stage: records of the first input reach
 * {@link #processElement}, those of the second {@link #processElement2}, on the task thread, in the
 * order the task takes them from its channels (no order between the two inputs is promised).
 * Barriers are aligned over the channels of both inputs and watermarks combined over both, so a
 * snapshot holds the effect of exactly the records of either input before the barrier.
 */
public abstract class TwoInputStreamOperator<IN1, IN2> extends StreamOperator<IN1> {

    /** A record of the second input. */
    public abstract void processElement2(IN2 record) throws Exception;
}
