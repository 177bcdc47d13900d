package dev.onceflow.runtime.api;

import dev.onceflow.runtime.state.AggregatingState;
import dev.onceflow.runtime.state.ListState;
import dev.onceflow.runtime.state.MapState;
import dev.onceflow.runtime.state.ReducingState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;

/**
 * Processes the records of a keyed stream one at a time with state and timers scoped to each
 * record's key. State and timers are checkpointed with the stream, so after a crash they hold
 * exactly the effect of the records (and timer firings) before the restored checkpoint. One
 * instance per parallel subtask; called on its task thread only, never concurrently.
 *
 * <pre>{@code
 * // Counts each key's records per minute of event time, emitted once the minute is complete.
 * class CountPerMinute extends KeyedProcessFunction<String, Event, String> {
 *     private MapState<Long, Long> counts;
 *
 *     public void open(KeyedContext context) {
 *         counts = context.getState(StateDescriptor.map("counts", Serializers.LONG, Serializers.LONG));
 *     }
 *
 *     public void processElement(Event event, Context<String> context, Collector<String> out) {
 *         long end = context.timestamp() / 60_000 * 60_000 + 60_000;
 *         Long count = counts.get(end);
 *         counts.put(end, count == null ? 1 : count + 1);
 *         context.timerService().registerEventTimeTimer(end - 1);
 *     }
 *
 *     public void onTimer(long time, OnTimerContext<String> context, Collector<String> out) {
 *         out.collect(context.currentKey() + " " + (time + 1) + " " + counts.get(time + 1));
 *         counts.remove(time + 1);
 *     }
 * }
 * }</pre>
 */
public abstract class KeyedProcessFunction<K, IN, OUT> {

    /** Called once before the first record; register state here. */
    public void open(KeyedContext context) throws Exception {
    }

    /** Called for each record, with the record's key as the current key. */
    public abstract void processElement(IN value, Context<K> context, Collector<OUT> out) throws Exception;

    /**
     * A timer of {@code context.currentKey()} fired: an event-time timer once the watermark reached
     * {@code timestamp}, a processing-time timer once the wall clock did. Each registered timer
     * fires once; records emitted here carry {@code timestamp} for event time and no timestamp for
     * processing time. Runs between records, never during {@code processElement}.
     */
    public void onTimer(long timestamp, OnTimerContext<K> context, Collector<OUT> out) throws Exception {
    }

    /** Called when the job finishes or fails. */
    public void close() throws Exception {
    }

    /** Per-record context. */
    public interface Context<K> {

        K currentKey();

        /**
         * The current record's timestamp (in {@code onTimer}: an event-time timer's time), or
         * {@link Long#MIN_VALUE} if it has none.
         */
        long timestamp();

        /** Timers of the current key, and the current watermark. */
        TimerService timerService();

        /**
         * The current record is late (its event time is behind what the function already emitted
         * results for) and the function leaves it out: counts it in the job's
         * {@code onceflow.records.late} meter of this operator, and logs a warning for the first
         * one of each subtask, so that no record goes missing unnoticed.
         */
        void countLateRecord();
    }

    /** The context of a firing timer. */
    public interface OnTimerContext<K> extends Context<K> {

        TimeDomain timeDomain();
    }

    /** Registration of keyed state; the returned objects stay valid for the life of the function. */
    public interface KeyedContext {

        int subtaskIndex();

        <T> ValueState<T> getState(StateDescriptor.Value<T> descriptor);

        <T> ListState<T> getState(StateDescriptor.List<T> descriptor);

        <UK, UV> MapState<UK, UV> getState(StateDescriptor.Map<UK, UV> descriptor);

        <T> ReducingState<T> getState(StateDescriptor.Reducing<T> descriptor);

        <IN2, ACC, OUT2> AggregatingState<IN2, OUT2> getState(StateDescriptor.Aggregating<IN2, ACC, OUT2> descriptor);
    }
}
