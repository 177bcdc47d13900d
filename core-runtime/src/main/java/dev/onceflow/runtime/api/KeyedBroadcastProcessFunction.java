package dev.onceflow.runtime.api;

import dev.onceflow.runtime.state.BroadcastState;
import dev.onceflow.runtime.state.ReadOnlyBroadcastState;
import dev.onceflow.runtime.state.StateDescriptor;

/**
 * Processes a keyed stream together with a broadcast stream: the records of the keyed stream with
 * keyed state and timers, as in a {@link KeyedProcessFunction}, reading the broadcast state; the
 * records of the broadcast stream, which every parallel subtask receives, changing it.
 *
 * <pre>{@code
 * // Alerts when a key's running total passes the limit last broadcast for that key.
 * StateDescriptor.Map<String, Long> limits = StateDescriptor.map("limits", Serializers.STRING, Serializers.LONG);
 * events.keyBy(Event::key, Serializers.STRING)
 *       .connect(limitUpdates.broadcast(limits))
 *       .process(() -> new KeyedBroadcastProcessFunction<String, Event, Event, String>() {
 *           private ValueState<Long> total;
 *
 *           public void open(OpenContext context) {
 *               total = context.getState(StateDescriptor.value("total", Serializers.LONG));
 *           }
 *
 *           public void processElement(Event event, ReadOnlyContext<String> context, Collector<String> out) {
 *               long sum = (total.value() == null ? 0 : total.value()) + 1;
 *               total.update(sum);
 *               Long limit = context.getBroadcastState(limits).get(context.currentKey());
 *               if (limit != null && sum > limit) {
 *                   out.collect(context.currentKey() + " passed " + limit);
 *               }
 *           }
 *
 *           public void processBroadcastElement(Event update, Context context, Collector<String> out) {
 *               context.getBroadcastState(limits).put(update.key(), Long.parseLong(update.payload()));
 *           }
 *       }).uid("limits-check");
 * }</pre>
 *
 * <p>Threading, ordering between the inputs, and what holds after a crash are as for
 * {@link BroadcastProcessFunction}; keyed state and timers are as for {@link KeyedProcessFunction}
 * (and follow the job's state backend). A broadcast record has no key: keyed state cannot be used
 * in {@link #processBroadcastElement}.
 */
public abstract class KeyedBroadcastProcessFunction<K, IN, B, OUT> {

    /** Called once before the first record of either input, after state was restored; register keyed state here. */
    public void open(OpenContext context) throws Exception {
    }

    /** A record of the keyed input, with its key as the current key; the broadcast state can be read, not changed. */
    public abstract void processElement(IN value, ReadOnlyContext<K> context, Collector<OUT> out) throws Exception;

    /** A record of the broadcast input; the broadcast state can be changed, keyed state not used. */
    public abstract void processBroadcastElement(B value, Context context, Collector<OUT> out) throws Exception;

    /**
     * A timer of {@code context.currentKey()} fired; see {@link KeyedProcessFunction#onTimer}. The
     * broadcast state can be read, not changed.
     */
    public void onTimer(long timestamp, OnTimerContext<K> context, Collector<OUT> out) throws Exception {
    }

    /** Called when the job finishes or fails. */
    public void close() throws Exception {
    }

    /** What {@link #open} may do: register keyed state, read the broadcast state as restored. */
    public interface OpenContext extends KeyedProcessFunction.KeyedContext {

        /** Whether this attempt started from a checkpoint or savepoint. */
        boolean isRestored();

        <KB, VB> ReadOnlyBroadcastState<KB, VB> getBroadcastState(StateDescriptor.Map<KB, VB> descriptor);
    }

    /** The context of a record of the keyed input. */
    public interface ReadOnlyContext<K> extends KeyedProcessFunction.Context<K> {

        /**
         * The broadcast state named by {@code descriptor}, read only.
         *
         * @throws IllegalArgumentException if {@code descriptor} was not given to {@code broadcast(...)}
         */
        <KB, VB> ReadOnlyBroadcastState<KB, VB> getBroadcastState(StateDescriptor.Map<KB, VB> descriptor);
    }

    /** The context of a firing timer. */
    public interface OnTimerContext<K> extends ReadOnlyContext<K> {

        TimeDomain timeDomain();
    }

    /** The context of a record of the broadcast input. */
    public interface Context {

        /** The current record's timestamp, or {@link Long#MIN_VALUE} if it has none. */
        long timestamp();

        /** The current watermark of the step: the lower of its two inputs'. */
        long currentWatermark();

        /**
         * The broadcast state named by {@code descriptor}, to read and change.
         *
         * @throws IllegalArgumentException if {@code descriptor} was not given to {@code broadcast(...)}
         */
        <KB, VB> BroadcastState<KB, VB> getBroadcastState(StateDescriptor.Map<KB, VB> descriptor);
    }
}
