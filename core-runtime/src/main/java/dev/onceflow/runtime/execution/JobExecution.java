package dev.onceflow.runtime.execution;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import dev.onceflow.runtime.checkpoint.CheckpointCoordinator;
import dev.onceflow.runtime.checkpoint.CheckpointHistory;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.checkpoint.CheckpointMetadata;
import dev.onceflow.runtime.checkpoint.CheckpointStats;
import dev.onceflow.runtime.checkpoint.CheckpointStorage;
import dev.onceflow.runtime.checkpoint.RestoredCheckpoint;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.config.CommitRetry;
import dev.onceflow.runtime.graph.JobPlan;
import dev.onceflow.runtime.graph.Transformation;
import dev.onceflow.runtime.metrics.JobMetrics;
import dev.onceflow.runtime.metrics.RecordCounter;
import dev.onceflow.runtime.operator.OperatorContext;
import dev.onceflow.runtime.operator.Output;
import dev.onceflow.runtime.operator.SourceOperator;
import dev.onceflow.runtime.operator.StreamOperator;
import dev.onceflow.runtime.operator.TaskTime;
import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.runtime.task.InFlightRecords;
import dev.onceflow.runtime.task.InputGate;
import dev.onceflow.runtime.task.ProcessingTask;
import dev.onceflow.runtime.task.RecordWriter;
import dev.onceflow.runtime.task.SourceTask;
import dev.onceflow.runtime.task.StreamElement;
import dev.onceflow.runtime.task.Task;
import dev.onceflow.runtime.task.TaskEnvironment;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.source.ReplayableSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt of a job: its tasks, channels, enumerators and checkpoint coordinator, from start
 * (fresh or restored) until every task finished, one failed, or the job was cancelled. A restart
 * is a new attempt built from the latest completed checkpoint.
 */
final class JobExecution implements TaskEnvironment {

    private static final Logger LOG = LoggerFactory.getLogger(JobExecution.class);
    private static final int CHANNEL_CAPACITY = 8;
    private static final int BATCH_SIZE = 256;

    /** How an attempt ended. */
    enum Outcome {
        FINISHED, FAILED, CANCELLED
    }

    /** How long the end of an attempt waits for its snapshot threads to stop. */
    private static final long SNAPSHOT_STOP_SECONDS = 30;

    private final String jobName;
    private final JobPlan plan;
    private final CheckpointConfig checkpointConfig;
    private final Optional<Duration> maxCommitWait;
    private final CommitRetry commitRetry;
    private final CheckpointStorage storage;
    private final RestoredCheckpoint restored;
    private final long firstCheckpointId;
    private final String attemptId;
    private final JobMetrics metrics;
    private final CheckpointHistory history;
    private final ScheduledExecutorService coordinatorThread;
    private final ExecutorService snapshotThreads;
    /** Wakes tasks up for processing-time timers; the timers themselves run on the task threads. */
    private final ScheduledThreadPoolExecutor timerThread;
    private final List<Task> tasks = new ArrayList<>();
    private final List<SourceTask> sourceTasks = new ArrayList<>();
    private final List<Task> lastStageTasks = new ArrayList<>();
    private final List<RecordCounter> deadLetterCounts = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final CountDownLatch finished;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** One per source, by the source's uid, in stage order. */
    private final java.util.Map<String, EnumeratorHost<?, ?>> enumerators = new java.util.LinkedHashMap<>();
    private final java.util.Map<String, List<SourceTask>> sourceTasksByUid = new java.util.HashMap<>();
    private final CheckpointCoordinator coordinator;
    private volatile boolean cancelled;
    private int endedSources;

    JobExecution(String jobName, JobPlan plan, CheckpointConfig checkpointConfig, CommitRetry commitRetry,
            CheckpointStorage storage, RestoredCheckpoint restored, long firstCheckpointId, String attemptId,
            Optional<Duration> maxCommitWait, JobMetrics metrics, CheckpointHistory history) {
        this.jobName = jobName;
        this.metrics = metrics;
        this.history = history;
        this.maxCommitWait = maxCommitWait;
        this.plan = plan;
        this.checkpointConfig = checkpointConfig;
        this.commitRetry = commitRetry;
        this.storage = storage;
        this.restored = restored;
        this.firstCheckpointId = firstCheckpointId;
        this.attemptId = attemptId;
        ScheduledThreadPoolExecutor coordinator = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "onceflow-coordinator"));
        // Checkpoint timeouts and enumerator discovery must not keep a finished attempt alive.
        coordinator.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        coordinator.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        this.coordinatorThread = coordinator;
        this.snapshotThreads = Executors.newFixedThreadPool(2, r -> daemon(r, "onceflow-snapshot"));
        this.timerThread = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "onceflow-timers"));
        timerThread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        timerThread.setRemoveOnCancelPolicy(true);
        for (JobPlan.Stage stage : plan.sourceStages()) {
            Transformation sourceStep = stage.chain().get(0);
            enumerators.put(sourceStep.uid(), new EnumeratorHost<>(sourceStep.uid(),
                    (ReplayableSource<?, ?, ?>) sourceStep.source(), coordinatorThread, this::fail));
        }
        buildTasks();
        this.finished = new CountDownLatch(tasks.size());
        this.coordinator = new CheckpointCoordinator(jobName, plan.maxParallelism(), checkpointConfig, storage,
                coordinatorThread, new Participants(), firstCheckpointId);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    private void buildTasks() {
        List<JobPlan.Stage> stages = plan.stages();
        List<InputGate[]> gates = new ArrayList<>();
        for (JobPlan.Stage stage : stages) {
            int channels = stage.inputs().stream().mapToInt(input -> stages.get(input.stage()).parallelism()).sum();
            InputGate[] stageGates = new InputGate[stage.parallelism()];
            for (int i = 0; i < stageGates.length; i++) {
                stageGates[i] = new InputGate(channels, CHANNEL_CAPACITY);
            }
            gates.add(stageGates);
        }
        OperatorContext.TaskServices services = new OperatorContext.TaskServices() {
            @Override
            public void requestSplit(String sourceUid, int subtask) {
                coordinatorThread.execute(() -> enumerators.get(sourceUid).handleSplitRequest(subtask));
            }

            @Override
            public void registerReader(String sourceUid, int subtask) {
                coordinatorThread.execute(() -> enumerators.get(sourceUid).addReader(subtask));
            }

            @Override
            public void lateRecord(String operatorUid, int subtask) {
                metrics.lateRecord(operatorUid, subtask);
            }
        };
        for (JobPlan.Stage stage : stages) {
            boolean last = stage.downstream() < 0;
            JobPlan.Input into = last ? null : stages.get(stage.downstream()).inputs().stream()
                    .filter(input -> input.stage() == stage.index()).findFirst().orElseThrow();
            for (int subtask = 0; subtask < stage.parallelism(); subtask++) {
                InputGate gate = gates.get(stage.index())[subtask];
                TaskTime time = new TaskTime((delay, action) -> timerThread.schedule(() -> gate.sendMail(action),
                        delay, TimeUnit.MILLISECONDS));
                RecordWriter writer = last ? null : new RecordWriter(gates.get(stage.downstream()),
                        into.firstChannel() + subtask, into.partitioning(), plan.maxParallelism(), BATCH_SIZE, time);
                Task task = createTask(stage, subtask, gate, writer, services, time);
                tasks.add(task);
                if (last) {
                    lastStageTasks.add(task);
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private Task createTask(JobPlan.Stage stage, int subtask, InputGate gate, RecordWriter writer,
            OperatorContext.TaskServices services, TaskTime time) {
        List<StreamOperator<Object>> chain = new ArrayList<>();
        for (Transformation step : stage.chain()) {
            chain.add((StreamOperator<Object>) step.createOperator());
        }
        Function<String, RestoredState> state = uid -> restored == null
                ? RestoredState.fresh(stage.parallelism())
                : restored.stateFor(uid, subtask, stage.parallelism());
        boolean unaligned = checkpointConfig.unaligned();
        Transformation.DeadLetterSink deadLetterSink = stage.isSource() ? stage.chain().get(0).deadLetters() : null;
        StreamOperator<Object> deadLetters = deadLetterSink == null ? null
                : (StreamOperator<Object>) deadLetterSink.operatorFactory().get();
        Task task = stage.isSource()
                ? new SourceTask(stage.name(), subtask, stage.parallelism(), withDeadLetters(stage.uids(),
                        deadLetterSink == null ? null : deadLetterSink.uid()), gate, withDeadLetters(chain, deadLetters),
                        writer, this, state, unaligned)
                : new ProcessingTask(stage.name(), subtask, stage.parallelism(), stage.uids(), gate, chain, writer, this,
                        state, checkpointConfig.mode(), unaligned, inFlightRecords(stage, subtask),
                        stage.inputs().size() > 1 ? stage.inputs().get(1).firstChannel() : gate.channelCount());
        Output<Object> output = last(writer);
        for (int i = chain.size() - 1; i >= 0; i--) {
            Transformation step = stage.chain().get(i);
            if (i < chain.size() - 1) {
                output = toNext(chain.get(i + 1), output);
            }
            if (i == 0 && task instanceof SourceTask source) {
                output = counting(source, output);
            }
            output = bindMetrics(stage, i, subtask, task, writer, output);
            chain.get(i).setup(new OperatorContext(jobName, step.uid(), step.name(), subtask, stage.parallelism(),
                    plan.maxParallelism(), firstCheckpointId, attemptId, checkpointConfig.mode(),
                    checkpointConfig.maxConcurrent(), commitRetry, services, maxCommitWait, time, plan.stateBackend(),
                    storage.sharedState()),
                    output);
        }
        if (deadLetters != null) {
            setUpDeadLetters(stage, subtask, (SourceOperator<?, ?>) (StreamOperator<?>) chain.get(0),
                    deadLetterSink.uid(), deadLetters, services, time);
        }
        if (task instanceof SourceTask source) {
            sourceTasks.add(source);
            sourceTasksByUid.computeIfAbsent(stage.uids().get(0), uid -> new ArrayList<>()).add(source);
        }
        return task;
    }

    /**
     * The operators a source task runs: its chain and, after it, the dead-letter sink, which takes
     * no records from the chain but is initialized, pre-committed, snapshotted under its own uid and
     * notified with it (rule SRC-6).
     */
    private static <E> List<E> withDeadLetters(List<E> chain, E deadLetters) {
        if (deadLetters == null) {
            return chain;
        }
        List<E> all = new ArrayList<>(chain);
        all.add(deadLetters);
        return all;
    }

    /** Connects the source's rejected records to its dead-letter sink, counted as the sink's records in. */
    private void setUpDeadLetters(JobPlan.Stage stage, int subtask, SourceOperator<?, ?> source, String uid,
            StreamOperator<Object> sink, OperatorContext.TaskServices services, TaskTime time) {
        sink.setup(new OperatorContext(jobName, uid, uid, subtask, stage.parallelism(), plan.maxParallelism(),
                firstCheckpointId, attemptId, checkpointConfig.mode(), checkpointConfig.maxConcurrent(), commitRetry,
                services, maxCommitWait, time, plan.stateBackend(), storage.sharedState()), last(null));
        RecordCounter received = new RecordCounter();
        metrics.bindRecordsIn(uid, subtask, received::count);
        deadLetterCounts.add(received);
        source.sendDeadLettersTo(row -> {
            sink.processElement(row);
            received.increment();
        });
    }

    /**
     * How the records in flight into {@code stage} are stored, with the serializer the previous
     * stage's last step declared; null if it declared none (then the job cannot take unaligned
     * checkpoints, which {@link JobPlan#requireRecordSerializers} refuses before it starts).
     */
    private InFlightRecords inFlightRecords(JobPlan.Stage stage, int subtask) {
        if (stage.inputs().size() != 1) {
            return null;
        }
        JobPlan.Input input = stage.inputs().get(0);
        List<Transformation> upstream = plan.stages().get(input.stage()).chain();
        SimpleVersionedSerializer<Object> serializer = upstream.get(upstream.size() - 1).recordSerializer();
        if (serializer == null) {
            return null;
        }
        String head = stage.uids().get(0);
        return new InFlightRecords(head, serializer, input.partitioning(), plan.maxParallelism(),
                count -> metrics.inFlightRecordsStored(head, subtask, count));
    }

    /** The output of a chain's last operator: the channels to the next stage, or nothing after the sink. */
    private static Output<Object> last(RecordWriter writer) {
        if (writer == null) {
            return record -> { };
        }
        return new Output<>() {
            @Override
            public void collect(Object record) {
                try {
                    writer.emit(record);
                } catch (Exception e) {
                    throw chainFailure(e);
                }
            }

            @Override
            public void emitWatermark(long watermark) {
                inChain(() -> writer.broadcast(new StreamElement.Watermark(watermark)));
            }

            @Override
            public void emitWatermarkStatus(boolean idle) {
                inChain(() -> writer.broadcast(
                        idle ? StreamElement.WatermarkStatus.IDLE : StreamElement.WatermarkStatus.ACTIVE));
            }
        };
    }

    /** Into the next operator of the chain; the watermark status skips operators and goes to the channels. */
    private static Output<Object> toNext(StreamOperator<Object> next, Output<Object> nextOutput) {
        return new Output<>() {
            @Override
            public void collect(Object record) {
                try {
                    next.processElement(record);
                } catch (Exception e) {
                    throw chainFailure(e);
                }
            }

            @Override
            public void emitWatermark(long watermark) {
                inChain(() -> next.processWatermark(watermark));
            }

            @Override
            public void emitWatermarkStatus(boolean idle) {
                nextOutput.emitWatermarkStatus(idle);
            }
        };
    }

    /** One call along an operator chain, which may throw what the operator throws. */
    @FunctionalInterface
    private interface ChainCall {
        void run() throws Exception;
    }

    /** Runs {@code call}, carrying a checked exception out of the {@code Output} to the task. */
    private static void inChain(ChainCall call) {
        try {
            call.run();
        } catch (Exception e) {
            throw chainFailure(e);
        }
    }

    /**
     * What an {@code Output} throws for {@code failure} of the chain behind it: unchecked as it
     * is, checked wrapped for the task to unwrap. Per-record calls use this directly rather than
     * {@link #inChain}, which would allocate a capturing lambda per record and call it through a
     * call site shared by every kind of chain call.
     */
    private static RuntimeException chainFailure(Exception failure) {
        if (failure instanceof RuntimeException unchecked) {
            return unchecked;
        }
        if (failure instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        return new Task.ChainException(failure);
    }

    /** Counts the records a source emits. */
    private static Output<Object> counting(SourceTask source, Output<Object> downstream) {
        return new Output<>() {
            @Override
            public void collect(Object record) {
                source.countRecord();
                downstream.collect(record);
            }

            @Override
            public void emitWatermark(long watermark) {
                downstream.emitWatermark(watermark);
            }

            @Override
            public void emitWatermarkStatus(boolean idle) {
                downstream.emitWatermarkStatus(idle);
            }
        };
    }

    /**
     * Binds the meters of the {@code i}-th operator of the chain to this attempt's counts, and
     * returns its output, counting what it emits where needed. A source's emitted records are the
     * task's count (records read); another operator's are counted where they leave it, which is
     * also the next operator's input. The head of a later stage receives what the task takes from
     * its channels. A sink emits nothing, so it has no output count.
     */
    private Output<Object> bindMetrics(JobPlan.Stage stage, int i, int subtask, Task task, RecordWriter writer,
            Output<Object> output) {
        String uid = stage.chain().get(i).uid();
        boolean last = i == stage.chain().size() - 1;
        if (i == 0 && !(task instanceof SourceTask)) {
            metrics.bindRecordsIn(uid, subtask, task::records);
        }
        if (last && writer == null) {
            return output;
        }
        LongSupplier emitted;
        Output<Object> counted = output;
        if (i == 0 && task instanceof SourceTask) {
            emitted = task::records;
        } else {
            RecordCounter counter = new RecordCounter();
            emitted = counter::count;
            counted = new Output<>() {
                @Override
                public void collect(Object record) {
                    counter.increment();
                    output.collect(record);
                }

                @Override
                public void emitWatermark(long watermark) {
                    output.emitWatermark(watermark);
                }

                @Override
                public void emitWatermarkStatus(boolean idle) {
                    output.emitWatermarkStatus(idle);
                }
            };
        }
        metrics.bindRecordsOut(uid, subtask, emitted);
        if (last) {
            metrics.bindBackpressureNanos(uid, subtask, writer::backpressureNanos);
        } else {
            metrics.bindRecordsIn(stage.chain().get(i + 1).uid(), subtask, emitted);
        }
        return counted;
    }

    /** Runs the attempt to its end. */
    Outcome run() throws InterruptedException {
        try {
            coordinatorThread.submit(() -> {
                for (EnumeratorHost<?, ?> enumerator : enumerators.values()) {
                    enumerator.start(sourceTasksByUid.get(enumerator.uid()), restored);
                }
                return null;
            }).get();
        } catch (java.util.concurrent.ExecutionException e) {
            failure.compareAndSet(null, e.getCause());
            shutdown();
            return Outcome.FAILED;
        }
        // Queued before any task can report the end of its input, so the final checkpoint never
        // races the start of periodic ones.
        coordinatorThread.execute(coordinator::start);
        tasks.forEach(Task::start);
        finished.await();
        shutdown();
        if (failure.get() != null) {
            return Outcome.FAILED;
        }
        return cancelled ? Outcome.CANCELLED : Outcome.FINISHED;
    }

    Throwable failure() {
        return failure.get();
    }

    void cancel() {
        cancelled = true;
        tasks.forEach(Task::cancel);
    }

    CompletableFuture<CheckpointLocation> triggerSavepoint(boolean stop) {
        CompletableFuture<CheckpointLocation> result = new CompletableFuture<>();
        coordinatorThread.execute(() -> coordinator.triggerSavepoint(stop).whenComplete((path, error) -> {
            if (error != null) {
                result.completeExceptionally(error);
            } else {
                result.complete(path);
            }
        }));
        return result;
    }

    /** The last checkpoint this attempt completed, if any. */
    CheckpointLocation lastCompletedCheckpoint() {
        return coordinator.lastCompleted();
    }

    long recordsRead() {
        return sourceTasks.stream().mapToLong(Task::records).sum();
    }

    long recordsWritten() {
        return lastStageTasks.stream().mapToLong(Task::records).sum();
    }

    /** Records the sources' readers rejected and sent to their dead-letter sinks in this attempt. */
    long deadLetters() {
        return deadLetterCounts.stream().mapToLong(RecordCounter::count).sum();
    }

    private void shutdown() throws InterruptedException {
        coordinatorThread.submit(coordinator::shutdown);
        for (Task task : tasks) {
            task.join(30_000);
        }
        coordinatorThread.submit(() -> enumerators.values().forEach(EnumeratorHost::close));
        coordinatorThread.shutdown();
        coordinatorThread.awaitTermination(10, TimeUnit.SECONDS);
        timerThread.shutdownNow();
        // A snapshot thread may still be serializing state into this attempt's checkpoint directory.
        // The attempt ends after it stopped: the next attempt, or the caller of a cancelled job, never
        // shares the cores, the heap or the directory with it. Snapshots stop between key groups.
        snapshotThreads.shutdownNow();
        if (!snapshotThreads.awaitTermination(SNAPSHOT_STOP_SECONDS, TimeUnit.SECONDS)) {
            LOG.warn("A snapshot thread of job {} did not stop within {} s of the attempt's end; it is left running",
                    jobName, SNAPSHOT_STOP_SECONDS);
        }
    }

    // ---- TaskEnvironment: calls from tasks, on any thread ----

    @Override
    public void acknowledge(Task task, long checkpointId, CheckpointMetadata.TaskStateRef state, long alignmentNanos) {
        coordinator.acknowledge(task.name(), checkpointId, state, alignmentNanos);
    }

    @Override
    public void decline(long checkpointId, Throwable cause) {
        coordinator.decline(checkpointId, cause);
    }

    @Override
    public void fail(Throwable cause) {
        if (failure.compareAndSet(null, cause)) {
            LOG.error("Job {} failed: {}", jobName, cause.getMessage(), cause);
            tasks.forEach(Task::cancel);
        }
    }

    @Override
    public void sourceEnded(int subtask) {
        coordinatorThread.execute(() -> {
            if (++endedSources == sourceTasks.size()) {
                LOG.info("All sources reached the end of their input; taking the final checkpoint");
                coordinator.triggerFinal();
            }
        });
    }

    @Override
    public void finished(Task task) {
        finished.countDown();
    }

    @Override
    public java.util.concurrent.Executor snapshotExecutor() {
        return snapshotThreads;
    }

    @Override
    public CheckpointStorage storage() {
        return storage;
    }

    /** The coordinator's view of this attempt. */
    private final class Participants implements CheckpointCoordinator.Participants {

        @Override
        public int taskCount() {
            return tasks.size();
        }

        @Override
        public List<CheckpointMetadata.EnumeratorStateRef> snapshotEnumerators(long checkpointId) throws Exception {
            List<CheckpointMetadata.EnumeratorStateRef> states = new ArrayList<>();
            for (EnumeratorHost<?, ?> enumerator : enumerators.values()) {
                states.add(enumerator.snapshot(checkpointId));
            }
            return states;
        }

        @Override
        public void triggerSources(CheckpointBarrier barrier) {
            for (SourceTask task : sourceTasks) {
                task.gate().sendMail(() -> task.triggerCheckpoint(barrier));
            }
        }

        @Override
        public void notifyComplete(long checkpointId) {
            enumerators.values().forEach(enumerator -> enumerator.notifyComplete(checkpointId));
            for (Task task : tasks) {
                task.gate().sendMail(() -> task.notifyCheckpointComplete(checkpointId));
            }
        }

        @Override
        public void notifyAborted(long checkpointId) {
            enumerators.values().forEach(enumerator -> enumerator.notifyAborted(checkpointId));
            for (Task task : tasks) {
                task.gate().sendMail(() -> task.notifyCheckpointAborted(checkpointId));
            }
        }

        @Override
        public void failJob(Throwable cause) {
            fail(cause);
        }

        @Override
        public void checkpointFinished(CheckpointStats stats) {
            history.add(stats);
            metrics.checkpointFinished(stats);
        }
    }
}
