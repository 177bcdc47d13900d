package dev.onceflow.conformance.flink;

import dev.onceflow.flink.OnceflowAtLeastOnceSink;
import dev.onceflow.flink.OnceflowSink;
import dev.onceflow.flink.OnceflowSource;
import dev.onceflow.flink.OnceflowWriteAheadSink;
import dev.onceflow.flink.SerializableSupplier;
import dev.onceflow.runtime.cli.Connectors;
import dev.onceflow.runtime.cli.JobFile;
import dev.onceflow.runtime.cli.JobFileException;
import dev.onceflow.runtime.cli.JobFileLoader;
import dev.onceflow.runtime.cli.RuntimeSettings;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.AtLeastOnceSink;
import dev.onceflow.spi.sink.GenericWriteAheadSink;
import dev.onceflow.spi.sink.Sink;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import dev.onceflow.spi.source.ReplayableSource;
import dev.onceflow.spi.source.SourceSplit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.PipelineOptionsInternal;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Runs a conformance job file on a Flink MiniCluster in this JVM, through the Flink bridge: the
 * {@link FlinkTarget} of the suite. It takes the arguments of {@code onceflow run}
 * ({@code run <job.yaml> --resume <latest|dir>}) and keeps the same contract: the same connectors
 * found by their factories, the same steps ({@code throttle}, {@code count-by-key}), checkpoints
 * retained in {@code <checkpoints.dir>/<name>} (Flink puts them under a fixed job id there),
 * {@code --resume latest} restores the newest retained checkpoint, the fault points armed with
 * {@code -Donceflow.fault} halt the JVM at the same steps ({@link FaultInjection},
 * {@link FaultingCheckpointStorage}), and {@code onceflow savepoint <dir> --stop} reaches the job
 * through {@code _control.json} ({@link ControlEndpoint}).
 */
public final class FlinkJobRunner {

    /**
     * Written into the job's directory when the job reached the end of its input. Flink discards a
     * job's retained checkpoints once it finishes (asynchronously, so sometimes before this JVM
     * exits and sometimes not), where Onceflow's runtime keeps the final one and a later
     * {@code --resume latest} restores it and ends at once. With the marker the runner does the
     * same deterministically: {@code --resume latest} after the end of input ends at once, instead
     * of starting the job afresh and writing its output a second time.
     */
    static final String FINISHED_MARKER = "_finished-on-flink";

    /** Exit status of a job that failed, as {@code onceflow run}'s. */
    static final int JOB_FAILED = 1;
    /** Exit status of a job file that cannot run. */
    static final int BAD_JOB_FILE = 2;

    private FlinkJobRunner() {
    }

    public static void main(String[] args) {
        int status;
        try {
            status = run(args);
        } catch (JobFileException e) {
            System.err.println("onceflow-on-flink: " + e.getMessage());
            status = BAD_JOB_FILE;
        } catch (Exception e) {
            System.err.println("onceflow-on-flink: the job failed: " + rootMessage(e));
            e.printStackTrace();
            status = JOB_FAILED;
        }
        System.out.flush();
        System.err.flush();
        // The MiniCluster leaves non-daemon threads behind.
        System.exit(status);
    }

    static int run(String[] args) throws Exception {
        Path jobFile = null;
        String resume = "latest";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "run" -> { }
                case "--resume" -> resume = args[++i];
                case "--progress-interval" -> i++; // the MiniCluster has no progress line
                default -> {
                    if (args[i].startsWith("-") || jobFile != null) {
                        throw new JobFileException("usage: run <job.yaml> [--resume latest|<checkpoint dir>]; got '"
                                + args[i] + "'");
                    }
                    jobFile = Path.of(args[i]);
                }
            }
        }
        if (jobFile == null) {
            throw new JobFileException("usage: run <job.yaml> [--resume latest|<checkpoint dir>]");
        }
        JobFile spec = JobFileLoader.parse(jobFile);
        String where = jobFile.toString();
        CheckpointConfig checkpoints = JobFileLoader.checkpointConfig(spec.checkpoints(), where);
        if (!checkpoints.directory().isLocal()) {
            throw new JobFileException(where + ": checkpoints.dir " + checkpoints.directory()
                    + ": the Flink target keeps checkpoints on local disk only");
        }
        Path jobDirectory = checkpoints.directory().resolve(spec.name()).toPath().toAbsolutePath();
        Files.createDirectories(jobDirectory);
        JobID jobId = jobIdOf(spec.name());
        Path finished = jobDirectory.resolve(FINISHED_MARKER);
        if (resume.equals("latest") && Files.exists(finished)) {
            System.out.printf("Job %s reached the end of its input in an earlier run; nothing to resume%n", spec.name());
            return 0;
        }
        Files.deleteIfExists(finished); // an explicit --resume starts a history of its own
        String restore = restorePath(resume, jobDirectory.resolve(jobId.toHexString()), where);

        int parallelism = spec.parallelism() == null ? 1 : spec.parallelism();
        Configuration config = configuration(checkpoints, jobDirectory, jobId, restore,
                RuntimeSettings.restart(spec.restart(), where));
        config.set(TaskManagerOptions.NUM_TASK_SLOTS, parallelism);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(parallelism);
        if (spec.maxParallelism() != null) {
            env.setMaxParallelism(spec.maxParallelism());
        }
        String description = buildJob(env, spec, where);

        JobClient job = env.executeAsync(spec.name());
        System.out.printf("Job %s: %s on Flink; checkpoints every %d ms%s%n", spec.name(), description,
                checkpoints.interval().toMillis(), restore == null ? "" : ", restored from " + restore);
        boolean stopped;
        try (ControlEndpoint control = new ControlEndpoint(job, jobDirectory)) {
            job.getJobExecutionResult().get();
            stopped = control.stopRequested();
        } catch (ExecutionException e) {
            System.err.println("onceflow-on-flink: job " + spec.name() + " failed: " + rootMessage(e));
            e.getCause().printStackTrace();
            return JOB_FAILED;
        }
        if (!stopped) {
            Files.writeString(finished, jobId.toHexString() + "\n");
        }
        System.out.printf("Job %s %s%n", spec.name(), stopped ? "stopped with a savepoint" : "finished");
        return 0;
    }

    /** One job id per job name, so every run keeps its checkpoints in the same directory. */
    static JobID jobIdOf(String name) {
        UUID id = UUID.nameUUIDFromBytes(("onceflow-conformance:" + name).getBytes(StandardCharsets.UTF_8));
        return new JobID(id.getLeastSignificantBits(), id.getMostSignificantBits());
    }

    /**
     * What to restore: for {@code latest} the retained checkpoint with the highest id that has its
     * {@code _metadata} (one without it was cut off by a crash), or none; otherwise the directory given.
     */
    static String restorePath(String resume, Path checkpointsOfJob, String where) throws IOException, JobFileException {
        if (!resume.equals("latest")) {
            Path given = Path.of(resume).toAbsolutePath();
            if (!Files.isRegularFile(given.resolve("_metadata"))) {
                throw new JobFileException("--resume " + resume + ": no such checkpoint or savepoint directory");
            }
            return given.toString();
        }
        if (!Files.isDirectory(checkpointsOfJob)) {
            return null;
        }
        try (Stream<Path> children = Files.list(checkpointsOfJob)) {
            Optional<Path> latest = children
                    .filter(p -> p.getFileName().toString().matches("chk-\\d+") && Files.isRegularFile(p.resolve("_metadata")))
                    .max((a, b) -> Long.compare(idOf(a), idOf(b)));
            return latest.map(Path::toString).orElse(null);
        }
    }

    private static long idOf(Path checkpoint) {
        return Long.parseLong(checkpoint.getFileName().toString().substring("chk-".length()));
    }

    private static Configuration configuration(CheckpointConfig checkpoints, Path jobDirectory, JobID jobId,
            String restore, RuntimeSettings.Restart restart) throws JobFileException {
        Configuration config = new Configuration();
        // Every listener of the MiniCluster on the loopback interface and a free port.
        config.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        config.set(RestOptions.ADDRESS, "127.0.0.1");
        config.set(RestOptions.BIND_PORT, "0");
        config.set(TaskManagerOptions.HOST, "127.0.0.1");
        config.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
        config.set(JobManagerOptions.ADDRESS, "127.0.0.1");
        config.set(JobManagerOptions.BIND_HOST, "127.0.0.1");

        config.set(CheckpointingOptions.CHECKPOINT_STORAGE, FaultingCheckpointStorage.Factory.class.getName());
        config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, jobDirectory.toUri().toString());
        config.set(CheckpointingOptions.SAVEPOINT_DIRECTORY, jobDirectory.toUri().toString());
        config.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, checkpoints.retained());
        config.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, checkpoints.interval());
        config.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
                checkpoints.mode() == dev.onceflow.runtime.config.CheckpointingMode.EXACTLY_ONCE
                        ? CheckpointingMode.EXACTLY_ONCE : CheckpointingMode.AT_LEAST_ONCE);
        config.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, checkpoints.timeout());
        config.set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, checkpoints.tolerableFailures());
        config.set(CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS, checkpoints.maxConcurrent());
        config.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, checkpoints.minPause());
        config.set(CheckpointingOptions.ENABLE_UNALIGNED, checkpoints.unaligned());
        config.set(PipelineOptionsInternal.PIPELINE_FIXED_JOB_ID, jobId.toHexString());
        if (restore != null) {
            config.set(StateRecoveryOptions.SAVEPOINT_PATH, restore);
        }
        switch (restart.strategy()) {
            case NONE -> config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
            case FIXED_DELAY -> {
                config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
                config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restart.attempts());
                config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, restart.delay());
            }
            default -> throw new JobFileException("restart.strategy '" + restart.strategy().name().toLowerCase(
                    java.util.Locale.ROOT).replace('_', '-') + "': the Flink target runs none and fixed-delay");
        }
        return config;
    }

    /** The job file's pipeline on {@code env}; returns its description. */
    private static String buildJob(StreamExecutionEnvironment env, JobFile spec, String where) throws Exception {
        Connectors connectors = Connectors.discover(null);
        ConnectorSupplier source = new ConnectorSupplier(true, spec.source().type(), raw(spec.source().options()),
                where + ": source '" + spec.source().type() + "'");
        ConnectorSupplier sink = new ConnectorSupplier(false, spec.sink().type(), raw(spec.sink().options()),
                where + ": sink '" + spec.sink().type() + "'");
        // Refuses unknown connectors and bad options here, before Flink starts.
        source.validate(connectors);
        Sink<Event> probe = sink.createSink(connectors);

        StringBuilder description = new StringBuilder(spec.source().type());
        DataStream<Event> stream = env.fromSource(OnceflowSource.of(source.sourceSupplier(), TypeInformation.of(Event.class)),
                WatermarkStrategy.noWatermarks(), spec.source().type()).uid(uidOr(spec.source().uid(), "source"));
        List<JobFile.Step> steps = spec.steps() == null ? List.of() : spec.steps();
        for (int i = 0; i < steps.size(); i++) {
            JobFile.Step step = steps.get(i);
            String uid = uidOr(step.uid(), step.type() + "-" + i);
            switch (step.type()) {
                case "throttle" -> {
                    Object rate = step.options() == null ? null : step.options().get("rows-per-second");
                    if (rate == null) {
                        throw new JobFileException(where + ": steps[" + i + "] 'throttle' needs rows-per-second");
                    }
                    stream = stream.map(new Throttle(Long.parseLong(rate.toString()))).uid(uid);
                }
                case "count-by-key" -> stream = stream.keyBy(Event::key).process(new CountByKey()).uid(uid);
                default -> throw new JobFileException(where + ": steps[" + i + "] has unknown type '" + step.type()
                        + "'; known: " + String.join(", ", JobFileLoader.STEP_TYPES));
            }
            description.append(" -> ").append(step.type());
        }
        String sinkUid = uidOr(spec.sink().uid(), "sink");
        if (probe instanceof TwoPhaseCommitSink<Event, ?>) {
            stream.sinkTo(OnceflowSink.of(sink.twoPhaseCommit(), sinkUid).withJobName(spec.name())).uid(sinkUid);
        } else if (probe instanceof GenericWriteAheadSink<Event>) {
            stream.sinkTo(OnceflowWriteAheadSink.of(sink.writeAhead(), sinkUid).withJobName(spec.name())).uid(sinkUid);
        } else if (probe instanceof AtLeastOnceSink<Event>) {
            // IdempotentSink too: Flink drives both the same way, flushing at the barrier.
            stream.sinkTo(OnceflowAtLeastOnceSink.of(sink.atLeastOnce(), sinkUid)).uid(sinkUid);
        } else {
            throw new JobFileException(where + ": sink '" + spec.sink().type() + "' is a BestEffortSink, which the"
                    + " Flink bridge does not run; use a mode of the sink that promises at least at-least-once");
        }
        return description.append(" -> ").append(spec.sink().type()).toString();
    }

    private static String uidOr(String uid, String fallback) {
        return uid != null ? uid : fallback;
    }

    private static LinkedHashMap<String, String> raw(Map<String, Object> options) {
        LinkedHashMap<String, String> raw = new LinkedHashMap<>();
        if (options != null) {
            options.forEach((k, v) -> raw.put(k, v == null ? "" : v.toString()));
        }
        return raw;
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.toString();
    }

    /**
     * Builds the job file's source or sink where Flink runs it (Flink ships sources and sinks
     * serialized; connectors are not): found by its factory, options validated, fault points around it.
     */
    private record ConnectorSupplier(boolean isSource, String type, LinkedHashMap<String, String> options, String owner)
            implements java.io.Serializable {

        void validate(Connectors connectors) throws JobFileException {
            try {
                OptionValues.validate(owner, options, connectors.source(type).options());
            } catch (OptionException e) {
                throw new JobFileException(e.getMessage());
            }
        }

        ReplayableSource<Event, ?, ?> createSource() {
            try {
                var factory = Connectors.discover(null).source(type);
                return FaultInjection.wrap(factory.createSource(OptionValues.validate(owner, options, factory.options())));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (JobFileException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }

        @SuppressWarnings("unchecked")
        SerializableSupplier<ReplayableSource<Event, SourceSplit, Object>> sourceSupplier() {
            return () -> (ReplayableSource<Event, SourceSplit, Object>) createSource();
        }

        Sink<Event> createSink(Connectors connectors) throws JobFileException {
            try {
                var factory = connectors.sink(type);
                return FaultInjection.wrap(factory.createSink(OptionValues.validate(owner, options, factory.options())));
            } catch (OptionException e) {
                throw new JobFileException(e.getMessage());
            }
        }

        Sink<Event> createSink() {
            try {
                return createSink(Connectors.discover(null));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (JobFileException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }

        @SuppressWarnings("unchecked")
        SerializableSupplier<TwoPhaseCommitSink<Event, Object>> twoPhaseCommit() {
            return () -> (TwoPhaseCommitSink<Event, Object>) createSink();
        }

        SerializableSupplier<GenericWriteAheadSink<Event>> writeAhead() {
            return () -> (GenericWriteAheadSink<Event>) createSink();
        }

        SerializableSupplier<AtLeastOnceSink<Event>> atLeastOnce() {
            return () -> (AtLeastOnceSink<Event>) createSink();
        }
    }

    /** The {@code throttle} step: at most {@code totalPerSecond} records a second over all subtasks, as Onceflow's. */
    static final class Throttle extends RichMapFunction<Event, Event> {
        private final long totalPerSecond;
        private transient long nanosPerRecord;
        private transient long next;

        Throttle(long totalPerSecond) {
            this.totalPerSecond = totalPerSecond;
        }

        @Override
        public void open(OpenContext context) {
            nanosPerRecord = (long) (1e9 * getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks() / totalPerSecond);
        }

        @Override
        public Event map(Event event) {
            long now = System.nanoTime();
            next = Math.max(next, now) + nanosPerRecord;
            if (next - nanosPerRecord > now) {
                LockSupport.parkNanos(next - nanosPerRecord - now);
            }
            return event;
        }
    }

    /**
     * The {@code count-by-key} step: each event with its key's running count, in Flink's keyed
     * state. Its snapshot is where {@code task.after-snapshot-before-ack} is reached: the task has
     * taken its snapshot and not yet acknowledged the checkpoint.
     */
    static final class CountByKey extends KeyedProcessFunction<String, Event, Event> implements CheckpointedFunction {
        private transient ValueState<Long> count;

        @Override
        public void open(OpenContext context) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
        }

        @Override
        public void processElement(Event event, Context context, Collector<Event> out) throws IOException {
            Long previous = count.value();
            long next = previous == null ? 1 : previous + 1;
            count.update(next);
            out.collect(event.withCount(next));
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {
            FaultPoints.reach(FaultPoints.TASK_AFTER_SNAPSHOT_BEFORE_ACK);
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {
        }
    }
}
