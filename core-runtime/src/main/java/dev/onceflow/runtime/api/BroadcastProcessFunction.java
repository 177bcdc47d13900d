package dev.onceflow.runtime.api;

import dev.onceflow.runtime.state.BroadcastState;
import dev.onceflow.runtime.state.ReadOnlyBroadcastState;
import dev.onceflow.runtime.state.StateDescriptor;

/**
 * Processes a stream together with a broadcast stream (typically rules, thresholds or a lookup
 * table that change now and then): every parallel subtask receives every record of the broadcast
 * stream and keeps what it needs of them in {@link BroadcastState}, which it reads while processing
 * the records of the other stream.
 *
 * <pre>{@code
 * StateDescriptor.Map<String, Long> limits = StateDescriptor.map("limits", Serializers.STRING, Serializers.LONG);
 * BroadcastStream<Event> limitUpdates = env.fromSource(limitSource, "limits").uid("limits").broadcast(limits);
 * events.connect(limitUpdates).process(() -> new BroadcastProcessFunction<Event, Event, Event>() {
 *     public void processElement(Event event, ReadOnlyContext context, Collector<Event> out) {
 *         Long limit = context.getBroadcastState(limits).get(event.key());
 *         if (limit == null || event.count() <= limit) {
 *             out.collect(event);
 *         }
 *     }
 *
 *     public void processBroadcastElement(Event update, Context context, Collector<Event> out) {
 *         context.getBroadcastState(limits).put(update.key(), Long.parseLong(update.payload()));
 *     }
 * }).uid("apply-limits");
 * }</pre>
 *
 * <p>One instance per parallel subtask and attempt, called on its task thread only, never
 * concurrently: no locks are needed. The two inputs interleave in no promised order: a record may
 * be processed before a broadcast record that was produced earlier. Checkpoints align both inputs,
 * so after a crash the broadcast state holds exactly the effect of the broadcast records before
 * the restored checkpoint, and the sources replay the rest.
 *
 * <p>On restore every subtask gets the same broadcast state at any parallelism (see
 * {@link BroadcastState} for what keeps the copies alike). The same broadcast record object reaches
 * every subtask: never change it in place.
 */
public abstract class BroadcastProcessFunction<IN, B, OUT> {

    /** Called once before the first record of either input, after the broadcast state was restored. */
    public void open(OpenContext context) throws Exception {
    }

    /** A record of the non-broadcast input; the broadcast state can be read, not changed. */
    public abstract void processElement(IN value, ReadOnlyContext context, Collector<OUT> out) throws Exception;

    /** A record of the broadcast input; the broadcast state can be changed. */
    public abstract void processBroadcastElement(B value, Context context, Collector<OUT> out) throws Exception;

    /** Called when the job finishes or fails. */
    public void close() throws Exception {
    }

    /** What {@link #open} may know. */
    public interface OpenContext {

        int subtaskIndex();

        int parallelism();

        /** Whether this attempt started from a checkpoint or savepoint. */
        boolean isRestored();

        /** The broadcast state as restored, read only. */
        <K, V> ReadOnlyBroadcastState<K, V> getBroadcastState(StateDescriptor.Map<K, V> descriptor);
    }

    /** The context of a record of the non-broadcast input. */
    public interface ReadOnlyContext {

        /** The current record's timestamp, or {@link Long#MIN_VALUE} if it has none. */
        long timestamp();

        /** The current watermark of the step: the lower of its two inputs'. */
        long currentWatermark();

        /**
         * The broadcast state named by {@code descriptor}, read only.
         *
         * @throws IllegalArgumentException if {@code descriptor} was not given to {@code broadcast(...)}
         */
        <K, V> ReadOnlyBroadcastState<K, V> getBroadcastState(StateDescriptor.Map<K, V> descriptor);
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
        <K, V> BroadcastState<K, V> getBroadcastState(StateDescriptor.Map<K, V> descriptor);
    }
}
