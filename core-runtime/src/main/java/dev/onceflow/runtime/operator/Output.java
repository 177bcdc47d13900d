package dev.onceflow.runtime.operator;

/**
 * Where an operator emits: the next operator of its chain, or the task's channels. A record
 * carries the task's current timestamp ({@link TaskTime#timestamp()}).
 */
public interface Output<T> {

    void collect(T record);

    /** Event time advanced to {@code watermark}: the next operator's {@code processWatermark}, or the channels. */
    default void emitWatermark(long watermark) {
    }

    /** The task stopped or resumed emitting event time; goes to the channels, not to operators. */
    default void emitWatermarkStatus(boolean idle) {
    }
}
