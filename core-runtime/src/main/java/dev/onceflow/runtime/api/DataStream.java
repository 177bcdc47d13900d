package dev.onceflow.runtime.api;

import dev.onceflow.runtime.graph.Transformation;
import dev.onceflow.runtime.operator.FilterOperator;
import dev.onceflow.runtime.operator.FlatMapOperator;
import dev.onceflow.runtime.operator.MapOperator;
import dev.onceflow.runtime.operator.TwoPhaseCommitSinkOperator;
import dev.onceflow.runtime.operator.WriteAheadSinkOperator;
import dev.onceflow.runtime.operator.WriteThroughSinkOperator;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.AtLeastOnceSink;
import dev.onceflow.spi.sink.BestEffortSink;
import dev.onceflow.spi.sink.GenericWriteAheadSink;
import dev.onceflow.spi.sink.Sink;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;

/**
 * A stream of records in a job under construction. Functions passed to {@link #map},
 * {@link #filter} and {@link #flatMap} are shared by all parallel subtasks and must be stateless;
 * use a keyed process function for state.
 */
public class DataStream<T> {

    protected final StreamEnvironment environment;
    protected final Transformation transformation;

    DataStream(StreamEnvironment environment, Transformation transformation) {
        this.environment = environment;
        this.transformation = transformation;
    }

    /** Stable identity of this step's state across restarts and job versions. Set it on every stateful step. */
    public DataStream<T> uid(String uid) {
        transformation.setUid(uid);
        return this;
    }

    public DataStream<T> name(String name) {
        transformation.setName(name);
        return this;
    }

    public DataStream<T> parallelism(int parallelism) {
        transformation.setParallelism(parallelism);
        return this;
    }

    /**
     * How this stream's records are written into a checkpoint while they are in flight to the
     * next step (unaligned checkpoints, {@link dev.onceflow.runtime.config.CheckpointConfig#withUnaligned}).
     * Needed where records cross from one task to another: before a {@code keyBy} or a change of
     * parallelism. Use {@link dev.onceflow.spi.record.EventSerializer#INSTANCE} for {@code Event}s.
     * Records must not be changed in place once emitted: the checkpoint writes them off the task thread.
     */
    public DataStream<T> recordSerializer(SimpleVersionedSerializer<T> serializer) {
        transformation.setRecordSerializer(serializer);
        return this;
    }

    public <R> DataStream<R> map(MapFunction<T, R> function) {
        return next("map", new Transformation.Partitioning.Forward(), () -> new MapOperator<>(function));
    }

    public DataStream<T> filter(FilterFunction<T> function) {
        return next("filter", new Transformation.Partitioning.Forward(), () -> new FilterOperator<>(function));
    }

    public <R> DataStream<R> flatMap(FlatMapFunction<T, R> function) {
        return next("flatMap", new Transformation.Partitioning.Forward(), () -> new FlatMapOperator<>(function));
    }

    /**
     * Processes each record with a function that may keep operator state (lists per subtask, see
     * {@link ProcessFunction}). {@code function} is called once per parallel subtask and attempt
     * for a fresh instance. Give the step a {@link #uid} so its state is found again.
     */
    public <R> DataStream<R> process(java.util.function.Supplier<? extends ProcessFunction<T, R>> function) {
        return next("process", new Transformation.Partitioning.Forward(),
                () -> new dev.onceflow.runtime.operator.ProcessOperator<>(function.get()));
    }

    /**
     * Adds a step implemented directly as an operator; {@code operator} is called once per parallel
     * subtask and attempt.
     */
    @SuppressWarnings("unchecked")
    public <R> DataStream<R> transform(String name,
            java.util.function.Supplier<? extends dev.onceflow.runtime.operator.StreamOperator<T>> operator) {
        return next(name, new Transformation.Partitioning.Forward(), operator);
    }

    /**
     * Partitions by key. {@code keySerializer} writes keys into keyed state checkpoints; use
     * {@link dev.onceflow.spi.serialization.Serializers#STRING} and friends for JDK types.
     */
    public <K> KeyedStream<T, K> keyBy(KeySelector<T, K> keySelector, SimpleVersionedSerializer<K> keySerializer) {
        return new KeyedStream<>(environment, transformation, keySelector, keySerializer);
    }

    /**
     * Sends every record of this stream to every parallel subtask of the step it is
     * {@linkplain #connect connected} to, where it may change the broadcast states {@code descriptors}
     * name (see {@link BroadcastProcessFunction}).
     *
     * @throws IllegalArgumentException if no descriptor is given or two share a name
     */
    @SafeVarargs
    public final BroadcastStream<T> broadcast(dev.onceflow.runtime.state.StateDescriptor.Map<?, ?>... descriptors) {
        java.util.Set<String> names = new java.util.HashSet<>();
        for (dev.onceflow.runtime.state.StateDescriptor.Map<?, ?> descriptor : descriptors) {
            if (!names.add(descriptor.name())) {
                throw new IllegalArgumentException("broadcast state '" + descriptor.name() + "' is declared twice");
            }
        }
        if (names.isEmpty()) {
            throw new IllegalArgumentException("broadcast(...) needs the descriptor of at least one broadcast state");
        }
        return new BroadcastStream<>(transformation, java.util.List.of(descriptors));
    }

    /**
     * Connects this stream to a broadcast stream, to process both in one step with
     * {@link BroadcastConnectedStream#process}.
     */
    public <B> BroadcastConnectedStream<T, B> connect(BroadcastStream<B> broadcast) {
        return new BroadcastConnectedStream<>(environment, transformation, broadcast);
    }

    /** Writes the stream to a sink; the runtime picks the operator for the sink's contract. */
    public SinkStream sinkTo(Sink<T> sink) {
        Transformation t = environment.add(Transformation.Kind.SINK, "sink", transformation,
                new Transformation.Partitioning.Forward(), sinkOperator(sink));
        return new SinkStream(t);
    }

    /**
     * Sends the records this source's reader cannot read to {@code sink}, as
     * {@link DeadLetters#SCHEMA} rows, and goes on (rule SRC-6); without it such a record fails the
     * job. The sink runs in each of the source's subtasks, and its transactions are pre-committed
     * and committed with the source task's checkpoints, so a sink with the exactly-once contract
     * holds each rejected record once, also across crashes.
     *
     * @param uid the dead-letter sink's uid, unique in the job; its state is checkpointed under it
     * @throws IllegalArgumentException if this stream is not a source's
     */
    public DataStream<T> deadLettersTo(Sink<dev.onceflow.spi.row.Row> sink, String uid) {
        transformation.setDeadLetters(new Transformation.DeadLetterSink(uid, sinkOperator(sink)));
        return this;
    }

    /** The operator that drives {@code sink}, by its contract. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static java.util.function.Supplier<dev.onceflow.runtime.operator.StreamOperator<?>> sinkOperator(
            Sink<?> sink) {
        if (sink instanceof TwoPhaseCommitSink twoPhase) {
            return () -> new TwoPhaseCommitSinkOperator<>(twoPhase);
        } else if (sink instanceof GenericWriteAheadSink writeAhead) {
            return () -> new WriteAheadSinkOperator<>(writeAhead);
        } else if (sink instanceof AtLeastOnceSink atLeastOnce) {
            // IdempotentSink too: the same flush at the barrier; idempotence is the sink's own promise.
            return () -> WriteThroughSinkOperator.atLeastOnce(atLeastOnce);
        }
        return () -> WriteThroughSinkOperator.bestEffort((BestEffortSink) sink);
    }

    <R> DataStream<R> next(String name, Transformation.Partitioning partitioning,
            java.util.function.Supplier<? extends dev.onceflow.runtime.operator.StreamOperator<?>> factory) {
        return new DataStream<>(environment,
                environment.add(Transformation.Kind.OPERATOR, name, transformation, partitioning, factory));
    }

    /** The end of a pipeline, to name and size the sink. */
    public static final class SinkStream {
        private final Transformation transformation;

        SinkStream(Transformation transformation) {
            this.transformation = transformation;
        }

        public SinkStream uid(String uid) {
            transformation.setUid(uid);
            return this;
        }

        public SinkStream name(String name) {
            transformation.setName(name);
            return this;
        }

        public SinkStream parallelism(int parallelism) {
            transformation.setParallelism(parallelism);
            return this;
        }
    }
}
