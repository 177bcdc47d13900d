package dev.onceflow.runtime.api;

/**
 * Timers of the current key in a {@link KeyedProcessFunction}. A timer is identified by its key,
 * domain and timestamp: registering the same one twice keeps one. Timers are keyed state: they are
 * in every checkpoint, move with their key group on rescaling, and a timer registered before a
 * crash fires once in the recovered run unless it had fired before the restored checkpoint.
 * Used on the task thread only, within {@code processElement} or {@code onTimer}.
 */
public interface TimerService {

    /** The wall clock in milliseconds, as processing-time timers see it. */
    long currentProcessingTime();

    /**
     * The operator's current event time: the lowest watermark of its inputs, or
     * {@link Long#MIN_VALUE} before the first one.
     */
    long currentWatermark();

    /** {@code onTimer(time)} runs once the watermark reaches {@code time}. */
    void registerEventTimeTimer(long time);

    /** {@code onTimer(time)} runs once the wall clock reaches {@code time}, or at once if it has. */
    void registerProcessingTimeTimer(long time);

    /** Removes the event-time timer at {@code time} of the current key, if there is one. */
    void deleteEventTimeTimer(long time);

    /** Removes the processing-time timer at {@code time} of the current key, if there is one. */
    void deleteProcessingTimeTimer(long time);
}
