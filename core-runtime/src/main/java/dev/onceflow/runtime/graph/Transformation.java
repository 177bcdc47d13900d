package dev.onceflow.runtime.graph;

import dev.onceflow.runtime.api.KeySelector;
import dev.onceflow.runtime.operator.StreamOperator;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.util.function.Supplier;

/**
 * One step of a job as the user declared it. The runtime chains consecutive forward steps of equal
 * parallelism into one task (see {@link JobPlan}).
 */
public final class Transformation {

    /** How records of the previous step reach this one. */
    public sealed interface Partitioning {
        /** Same subtask index; chained when the parallelism is equal. */
        record Forward() implements Partitioning {
        }

        /** Round robin over all subtasks. */
        record Rebalance() implements Partitioning {
        }

        /** By key group of the key, so each key's records reach the subtask that owns its state. */
        record Hash(KeySelector<Object, Object> keySelector) implements Partitioning {
        }

        /** Every record to every subtask: the broadcast input of a two-input step. */
        record Broadcast() implements Partitioning {
        }
    }

    /** What the step is, for the runtime to host it. */
    public enum Kind {
        SOURCE, OPERATOR, SINK
    }

    private final int index;
    private final Kind kind;
    private final Transformation input;
    private final Partitioning partitioning;
    private final Transformation input2;
    private final Partitioning partitioning2;
    private final Supplier<? extends StreamOperator<?>> operatorFactory;
    private final Object source;
    private String name;
    private String uid;
    private int parallelism;
    private SimpleVersionedSerializer<Object> recordSerializer;
    private DeadLetterSink deadLetters;

    public Transformation(int index, Kind kind, String name, Transformation input, Partitioning partitioning,
            Supplier<? extends StreamOperator<?>> operatorFactory, Object source) {
        this(index, kind, name, input, partitioning, null, null, operatorFactory, source);
    }

    /**
     * A step with two inputs: records of {@code input} reach its operator's {@code processElement},
     * those of {@code input2} its {@code processElement2} (a
     * {@link dev.onceflow.runtime.operator.TwoInputStreamOperator}).
     */
    public Transformation(int index, Kind kind, String name, Transformation input, Partitioning partitioning,
            Transformation input2, Partitioning partitioning2, Supplier<? extends StreamOperator<?>> operatorFactory,
            Object source) {
        this.index = index;
        this.kind = kind;
        this.name = name;
        this.input = input;
        this.partitioning = partitioning;
        this.input2 = input2;
        this.partitioning2 = partitioning2;
        this.operatorFactory = operatorFactory;
        this.source = source;
    }

    public int index() {
        return index;
    }

    public Kind kind() {
        return kind;
    }

    public Transformation input() {
        return input;
    }

    public Partitioning partitioning() {
        return partitioning;
    }

    /** The second input of a two-input step, else {@code null}. */
    public Transformation input2() {
        return input2;
    }

    /** How records of {@link #input2()} reach this step, else {@code null}. */
    public Partitioning partitioning2() {
        return partitioning2;
    }

    /** A new operator instance; called once per parallel subtask and attempt. */
    public StreamOperator<?> createOperator() {
        return operatorFactory.get();
    }

    /** The {@link dev.onceflow.spi.source.ReplayableSource} of a source step, else {@code null}. */
    public Object source() {
        return source;
    }

    public String name() {
        return name;
    }

    public void setName(String value) {
        this.name = value;
    }

    /** The explicit uid, or a uid derived from the position when none was set. */
    public String uid() {
        return uid != null ? uid : kind.name().toLowerCase(java.util.Locale.ROOT) + "-" + index;
    }

    public void setUid(String value) {
        if (!value.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("uid '" + value + "' may contain only letters, digits, '.', '_' and '-'");
        }
        this.uid = value;
    }

    /**
     * How this step's output records are written into a checkpoint when they are in flight to the
     * next stage (unaligned checkpoints), or null if none was declared.
     */
    public SimpleVersionedSerializer<Object> recordSerializer() {
        return recordSerializer;
    }

    @SuppressWarnings("unchecked")
    public void setRecordSerializer(SimpleVersionedSerializer<?> value) {
        this.recordSerializer = (SimpleVersionedSerializer<Object>) java.util.Objects.requireNonNull(value,
                "record serializer");
    }

    /** The parallelism, 0 meaning the environment's default. */
    public int parallelism() {
        return parallelism;
    }

    public void setParallelism(int value) {
        if (value < 1) {
            throw new IllegalArgumentException("parallelism must be >= 1, got " + value);
        }
        this.parallelism = value;
    }

    /**
     * Where a source step writes the records its reader rejects (rule SRC-6): a sink operator run in
     * each of the source's subtasks, checkpointed under its own {@code uid}.
     *
     * @param uid the dead-letter sink's uid, unique in the job like every step's
     * @param operatorFactory a new sink operator, once per subtask and attempt; it receives
     *     {@link dev.onceflow.runtime.api.DeadLetters} rows
     */
    public record DeadLetterSink(String uid, Supplier<? extends StreamOperator<?>> operatorFactory) {
    }

    /** The dead-letter sink of a source step, else {@code null}: the job fails on a rejected record. */
    public DeadLetterSink deadLetters() {
        return deadLetters;
    }

    public void setDeadLetters(DeadLetterSink value) {
        if (kind != Kind.SOURCE) {
            throw new IllegalArgumentException("only a source has dead letters; '" + uid() + "' is not a source");
        }
        if (!value.uid().matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("uid '" + value.uid()
                    + "' may contain only letters, digits, '.', '_' and '-'");
        }
        this.deadLetters = value;
    }
}
