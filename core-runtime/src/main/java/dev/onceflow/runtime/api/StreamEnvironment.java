package dev.onceflow.runtime.api;

import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.config.CommitRetry;
import dev.onceflow.runtime.config.RestartStrategy;
import dev.onceflow.runtime.execution.JobClient;
import dev.onceflow.runtime.execution.JobExecutionException;
import dev.onceflow.runtime.execution.JobResult;
import dev.onceflow.runtime.execution.RestoreSetting;
import dev.onceflow.runtime.graph.JobPlan;
import dev.onceflow.runtime.graph.Transformation;
import dev.onceflow.runtime.operator.SourceOperator;
import dev.onceflow.spi.source.ReplayableSource;
import dev.onceflow.runtime.state.HeapStateBackend;
import dev.onceflow.runtime.state.StateBackend;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.ExecutionException;

/**
 * Where a job is declared and run.
 *
 * <pre>{@code
 * StreamEnvironment env = StreamEnvironment.create()
 *         .setParallelism(2)
 *         .setCheckpointConfig(CheckpointConfig.defaults().withInterval(Duration.ofSeconds(1)));
 * env.fromSource(source, "events").uid("events")
 *    .keyBy(Event::key, Serializers.STRING)
 *    .process(CountPerKey::new).uid("count")
 *    .sinkTo(sink).uid("files");
 * env.execute("keyed-count");
 * }</pre>
 *
 * <p>A job is a tree of steps ending in one sink: a source, any number of steps, a sink; a second
 * source may join through a step with two inputs ({@link DataStream#connect}). Every declared
 * step must lead to the sink.
 */
public final class StreamEnvironment {

    /**
     * The longest job name. It names the job's checkpoint directory and is part of names sinks
     * derive (transaction ids, part of a prepared transaction's id), so it must stay well under
     * the 255 bytes a file name may have: a 300-character name failed only when the job created
     * that directory, after its parent had been created.
     */
    public static final int MAX_JOB_NAME_LENGTH = 100;

    /** What a job name may be, in words for error messages. */
    public static final String JOB_NAME_RULE = "1 to " + MAX_JOB_NAME_LENGTH
            + " letters, digits, '.', '_' or '-', other than '.' and '..'";

    private static final java.util.regex.Pattern JOB_NAME =
            java.util.regex.Pattern.compile("[A-Za-z0-9._-]{1," + MAX_JOB_NAME_LENGTH + "}");

    private int parallelism = 1;
    private int maxParallelism = 128;
    private CheckpointConfig checkpointConfig = CheckpointConfig.defaults();
    private RestartStrategy restartStrategy = RestartStrategy.none();
    private CommitRetry commitRetry = CommitRetry.DEFAULT;
    private RestoreSetting restore = RestoreSetting.fresh();
    private boolean allowNonRestoredState;
    private MeterRegistry meterRegistry;
    private StateBackend stateBackend;
    private int nextIndex;
    private Transformation sink;
    /** Every step, in declaration order. */
    private final java.util.List<Transformation> declared = new java.util.ArrayList<>();

    private StreamEnvironment() {
    }

    public static StreamEnvironment create() {
        return new StreamEnvironment();
    }

    /** Default parallelism of every step that does not set its own. */
    public StreamEnvironment setParallelism(int value) {
        if (value < 1) {
            throw new IllegalArgumentException("parallelism must be >= 1, got " + value);
        }
        this.parallelism = value;
        return this;
    }

    /** Number of key groups: the upper bound for the parallelism of keyed steps, fixed for the job's life. */
    public StreamEnvironment setMaxParallelism(int value) {
        if (value < 1 || value > 32768) {
            throw new IllegalArgumentException("max parallelism must be in 1..32768, got " + value);
        }
        this.maxParallelism = value;
        return this;
    }

    public StreamEnvironment setCheckpointConfig(CheckpointConfig value) {
        this.checkpointConfig = value;
        return this;
    }

    public CheckpointConfig checkpointConfig() {
        return checkpointConfig;
    }

    public StreamEnvironment setRestartStrategy(RestartStrategy value) {
        this.restartStrategy = value;
        return this;
    }

    public StreamEnvironment setCommitRetry(CommitRetry value) {
        this.commitRetry = value;
        return this;
    }

    /** Where the job starts: fresh (default), the latest checkpoint, or a given savepoint. */
    public StreamEnvironment setRestore(RestoreSetting value) {
        this.restore = value;
        return this;
    }

    /** Allows restoring a savepoint that holds state of operators the job no longer has. */
    public StreamEnvironment setAllowNonRestoredState(boolean value) {
        this.allowNonRestoredState = value;
        return this;
    }

    /**
     * Where the job's meters go (records in and out per operator, backpressure, checkpoints,
     * restarts; see {@code docs/observability.md}). Default: a new {@link SimpleMeterRegistry} per
     * job, readable through {@link JobClient#meterRegistry()} and the job's {@code /metrics}.
     */
    public StreamEnvironment setMeterRegistry(MeterRegistry value) {
        this.meterRegistry = value;
        return this;
    }

    /**
     * Starts the pipeline with a replayable source, without watermarks: records keep the timestamps
     * the reader gives them, and event time reaches the end only when a bounded source ends.
     */
    /**
     * Where keyed state lives while the job runs. Default: the backend named by the system
     * property {@value StateBackend#BACKEND_PROPERTY}, else the {@link HeapStateBackend}. Snapshots
     * have the same format on every backend, so a job can switch backends across a savepoint.
     */
    public StreamEnvironment setStateBackend(StateBackend value) {
        this.stateBackend = value;
        return this;
    }

    public <T> DataStream<T> fromSource(ReplayableSource<T, ?, ?> source, String name) {
        return fromSource(source, WatermarkStrategy.noWatermarks(), name);
    }

    /** Starts the pipeline with a replayable source whose records advance event time as {@code watermarks} says. */
    public <T> DataStream<T> fromSource(ReplayableSource<T, ?, ?> source, WatermarkStrategy<T> watermarks, String name) {
        Objects.requireNonNull(watermarks, "watermarks");
        Transformation t = new Transformation(nextIndex++, Transformation.Kind.SOURCE, name, null,
                new Transformation.Partitioning.Forward(), () -> new SourceOperator<>(source, watermarks), source);
        declared.add(t);
        return new DataStream<>(this, t);
    }

    Transformation add(Transformation.Kind kind, String name, Transformation input, Transformation.Partitioning partitioning,
            java.util.function.Supplier<? extends dev.onceflow.runtime.operator.StreamOperator<?>> factory) {
        Transformation t = new Transformation(nextIndex++, kind, name, input, partitioning, factory, null);
        declared.add(t);
        if (kind == Transformation.Kind.SINK) {
            if (sink != null) {
                throw new IllegalStateException("a job has exactly one sink");
            }
            sink = t;
        }
        return t;
    }

    Transformation addTwoInput(String name, Transformation input, Transformation.Partitioning partitioning,
            Transformation input2, Transformation.Partitioning partitioning2,
            java.util.function.Supplier<? extends dev.onceflow.runtime.operator.StreamOperator<?>> factory) {
        Transformation t = new Transformation(nextIndex++, Transformation.Kind.OPERATOR, name, input, partitioning,
                input2, partitioning2, factory, null);
        declared.add(t);
        return t;
    }

    /** The physical plan of the declared job. */
    public JobPlan plan() {
        if (sink == null) {
            throw new IllegalStateException("the job has no sink; end the pipeline with sinkTo(...)");
        }
        JobPlan plan = JobPlan.of(sink, parallelism, maxParallelism,
                stateBackend != null ? stateBackend : StateBackend.fromSystemProperties());
        if (plan.steps().size() != declared.size()) {
            // A branch that does not reach the sink would be dropped without a word; say so instead.
            java.util.Set<Transformation> planned = new java.util.HashSet<>(plan.steps());
            java.util.List<String> missing = declared.stream().filter(t -> !planned.contains(t))
                    .map(t -> "'" + t.uid() + "' (" + t.name() + ")").toList();
            throw new IllegalStateException("step " + String.join(", ", missing) + " does not lead to the sink; a job is"
                    + " a tree that ends in one sink: every source and step must reach it, and a stream feeds one next step");
        }
        if (checkpointConfig.unaligned()) {
            plan.requireRecordSerializers();
        }
        return plan;
    }

    /** Whether {@code name} can name a job: {@value #MAX_JOB_NAME_LENGTH} characters at most, see {@link #JOB_NAME_RULE}. */
    public static boolean isValidJobName(String name) {
        // '.' and '..' pass the character rule but resolve to the checkpoint directory or its parent.
        return name != null && JOB_NAME.matcher(name).matches() && !name.equals(".") && !name.equals("..");
    }

    /** Starts the job and returns at once. */
    public JobClient executeAsync(String jobName) throws IOException {
        if (!isValidJobName(jobName)) {
            throw new IllegalArgumentException("job name '" + jobName + "' is not accepted; expected " + JOB_NAME_RULE
                    + " (it names the checkpoint directory)");
        }
        return JobClient.start(jobName, plan(), checkpointConfig, commitRetry, restartStrategy, restore,
                allowNonRestoredState, meterRegistry != null ? meterRegistry : new SimpleMeterRegistry());
    }

    /** Runs the job to its end. */
    public JobResult execute(String jobName) throws JobExecutionException, IOException, InterruptedException {
        try {
            return executeAsync(jobName).result().get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof JobExecutionException j) {
                throw j;
            }
            throw new JobExecutionException("job " + jobName + " failed: " + e.getCause(), e.getCause());
        }
    }
}
