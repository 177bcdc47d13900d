package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.api.KeySelector;
import dev.onceflow.runtime.api.KeyedProcessFunction;
import dev.onceflow.runtime.api.TimeDomain;
import dev.onceflow.runtime.api.TimerService;
import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import dev.onceflow.runtime.checkpoint.CheckpointKind;
import dev.onceflow.runtime.metrics.JobMetrics;
import dev.onceflow.runtime.state.AggregatingState;
import dev.onceflow.runtime.state.KeyedStateBackend;
import dev.onceflow.runtime.state.StateBackend;
import dev.onceflow.runtime.state.ListState;
import dev.onceflow.runtime.state.MapState;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.ReducingState;
import dev.onceflow.runtime.state.RestoredState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.runtime.task.StreamElement;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.util.Map;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link KeyedProcessFunction} with heap keyed state and timers, snapshotted per key group.
 *
 * <p>Event-time timers fire when a watermark reaches them, before the watermark goes on, so the
 * operators after this one see the timers' output before the event time that caused it.
 * Processing-time timers fire in mail on the task thread; a wake-up is scheduled for the earliest
 * one only. Once a terminal barrier (end of input, stop with savepoint) went through, processing
 * time is quiet: nothing may be emitted after the last checkpoint, so timers still pending stay
 * in its state.
 */
public final class KeyedProcessOperator<K, IN, OUT> extends StreamOperator<IN>
        implements KeyedProcessFunction.OnTimerContext<K>, KeyedProcessFunction.KeyedContext, TimerService {

    private static final Logger LOG = LoggerFactory.getLogger(KeyedProcessOperator.class);

    /** State names the timers use; user state may not start with {@link #RESERVED_PREFIX}. */
    static final String RESERVED_PREFIX = "onceflow.";
    static final String EVENT_TIMERS = RESERVED_PREFIX + "timers.event";
    static final String PROCESSING_TIMERS = RESERVED_PREFIX + "timers.processing";

    private final KeySelector<IN, K> keySelector;
    private final SimpleVersionedSerializer<K> keySerializer;
    private final KeyedProcessFunction<K, IN, OUT> function;
    /**
     * System property {@value}: serialize keyed state on the task thread at the barrier, as before
     * copy-on-write snapshots. For the benchmark that measures what those save; never needed otherwise.
     */
    public static final String SYNCHRONOUS_SNAPSHOTS = "onceflow.state.synchronous-snapshots";
    private final boolean synchronousSnapshots = Boolean.getBoolean(SYNCHRONOUS_SNAPSHOTS);
    private KeyedStateBackend<K> backend;
    private KeyedTimers<K> eventTimers;
    private KeyedTimers<K> processingTimers;
    private TaskTime time;
    private long watermark = StreamElement.NO_TIMESTAMP;
    private TimeDomain firing;
    private long wakeUpAt = Long.MAX_VALUE;
    private long terminalCheckpoint = -1;
    private boolean warnedLate;
    /** The barrier of the checkpoint being taken, between prepareSnapshotPreBarrier and the snapshot. */
    private CheckpointBarrier barrier;

    public KeyedProcessOperator(KeySelector<IN, K> keySelector, SimpleVersionedSerializer<K> keySerializer,
            KeyedProcessFunction<K, IN, OUT> function) {
        this.keySelector = keySelector;
        this.keySerializer = keySerializer;
        this.function = function;
    }

    @Override
    public void initializeState(RestoredState state) throws Exception {
        backend = context.stateBackend().createKeyedStateBackend(new StateBackend.Scope(context.jobName(),
                context.uid(), context.subtaskIndex(), context.parallelism(), context.maxParallelism(),
                context.attemptId()), keySerializer);
        backend.restore(state.keyedState(), state.nativeKeyedState(), state.sharedState());
        eventTimers = new KeyedTimers<>(backend, EVENT_TIMERS);
        processingTimers = new KeyedTimers<>(backend, PROCESSING_TIMERS);
    }

    @Override
    public void open() throws Exception {
        time = context.time();
        function.open(this);
        // Restored processing-time timers that are due fire right away (in mail, after open).
        scheduleWakeUp();
    }

    @Override
    public void processElement(IN record) throws Exception {
        backend.setCurrentKey(keySelector.getKey(record));
        function.processElement(record, this, output::collect);
    }

    /**
     * {@link #processElement(Object)} for a record whose key and key group the {@code keyBy}
     * channel already computed with this operator's key selector: neither is computed again.
     */
    public void processElement(IN record, K key, int keyGroup) throws Exception {
        backend.setCurrentKey(key, keyGroup);
        function.processElement(record, this, output::collect);
    }

    @Override
    public void processWatermark(long value) throws Exception {
        watermark = value;
        firing = TimeDomain.EVENT_TIME;
        try {
            eventTimers.fireUpTo(value, (at, key) -> {
                time.setTimestamp(at);
                function.onTimer(at, this, output::collect);
            });
        } finally {
            firing = null;
        }
        output.emitWatermark(value);
    }

    private void onWakeUp(long scheduledFor) throws Exception {
        if (scheduledFor == wakeUpAt) {
            wakeUpAt = Long.MAX_VALUE;
        }
        if (terminalCheckpoint >= 0) {
            return;
        }
        firing = TimeDomain.PROCESSING_TIME;
        try {
            processingTimers.fireUpTo(time.currentProcessingTime(), (at, key) -> {
                time.setTimestamp(StreamElement.NO_TIMESTAMP);
                function.onTimer(at, this, output::collect);
            });
        } finally {
            firing = null;
        }
        scheduleWakeUp();
    }

    private void scheduleWakeUp() {
        long earliest = processingTimers.earliest();
        if (earliest < wakeUpAt && terminalCheckpoint < 0) {
            wakeUpAt = earliest;
            time.runAt(earliest, () -> onWakeUp(earliest));
        }
    }

    @Override
    public void prepareSnapshotPreBarrier(CheckpointBarrier barrier) {
        this.barrier = barrier;
        if (barrier.terminal()) {
            terminalCheckpoint = barrier.checkpointId();
        }
    }

    @Override
    public OperatorSnapshot snapshotState(long checkpointId) throws Exception {
        return new OperatorSnapshot(Map.of(), Map.of(), backend.snapshot());
    }

    /** Freezes the keyed state (copy-on-write) at the barrier; the snapshot thread serializes it. */
    @Override
    public Callable<OperatorSnapshot> snapshotStateAsync(long checkpointId) throws Exception {
        if (synchronousSnapshots) {
            return super.snapshotStateAsync(checkpointId);
        }
        KeyedStateBackend.Snapshot frozen = barrier != null && barrier.checkpointId() == checkpointId
                ? backend.freeze(new KeyedStateBackend.SnapshotOptions(checkpointId,
                        barrier.kind() == CheckpointKind.SAVEPOINT, barrier.lastCompletedCheckpointId(),
                        context.sharedState()))
                : backend.freeze();
        return () -> {
            KeyedStateBackend.Result result = frozen.write();
            return new OperatorSnapshot(Map.of(), Map.of(), result.keyGroups(), Map.of(), result.nativeState());
        };
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        if (checkpointId == terminalCheckpoint) {
            // The stop failed and the job runs on: so does processing time.
            terminalCheckpoint = -1;
            wakeUpAt = Long.MAX_VALUE;
            scheduleWakeUp();
        }
    }

    @Override
    public void close() throws Exception {
        try {
            function.close();
        } finally {
            closeBackend();
        }
    }

    private void closeBackend() throws java.io.IOException {
        if (backend != null) {
            backend.close();
        }
    }

    @Override
    public void cancel() {
        try {
            function.close();
        } catch (Exception ignored) {
            // the job is failing already; the original failure is what matters
        }
        try {
            closeBackend();
        } catch (Exception ignored) {
            // as above
        }
    }

    // Context

    @Override
    public K currentKey() {
        return backend.currentKey();
    }

    @Override
    public long timestamp() {
        return time.timestamp();
    }

    @Override
    public TimerService timerService() {
        return this;
    }

    @Override
    public TimeDomain timeDomain() {
        if (firing == null) {
            throw new IllegalStateException("timeDomain() is only known while a timer fires");
        }
        return firing;
    }

    // TimerService

    @Override
    public long currentProcessingTime() {
        return time.currentProcessingTime();
    }

    @Override
    public long currentWatermark() {
        return watermark;
    }

    @Override
    public void registerEventTimeTimer(long at) {
        eventTimers.register(at);
    }

    @Override
    public void registerProcessingTimeTimer(long at) {
        if (processingTimers.register(at)) {
            scheduleWakeUp();
        }
    }

    @Override
    public void deleteEventTimeTimer(long at) {
        eventTimers.delete(at);
    }

    @Override
    public void deleteProcessingTimeTimer(long at) {
        // A wake-up already scheduled for it finds nothing due and schedules the next one.
        processingTimers.delete(at);
    }

    @Override
    public void countLateRecord() {
        if (!warnedLate) {
            warnedLate = true;
            LOG.warn("{} subtask {}: a record with event time {} came after the watermark {} and is left out; "
                    + "further late records are counted in {} without a warning", context.uid(),
                    context.subtaskIndex(), timestamp(), watermark, JobMetrics.RECORDS_LATE);
        }
        if (context.taskServices() != null) {
            context.taskServices().lateRecord(context.uid(), context.subtaskIndex());
        }
    }

    // KeyedContext

    @Override
    public int subtaskIndex() {
        return context.subtaskIndex();
    }

    @Override
    public <T> ValueState<T> getState(StateDescriptor.Value<T> descriptor) {
        return backend.state(checkName(descriptor));
    }

    @Override
    public <T> ListState<T> getState(StateDescriptor.List<T> descriptor) {
        return backend.state(checkName(descriptor));
    }

    @Override
    public <UK, UV> MapState<UK, UV> getState(StateDescriptor.Map<UK, UV> descriptor) {
        return backend.state(checkName(descriptor));
    }

    @Override
    public <T> ReducingState<T> getState(StateDescriptor.Reducing<T> descriptor) {
        return backend.state(checkName(descriptor));
    }

    @Override
    public <IN2, ACC, OUT2> AggregatingState<IN2, OUT2> getState(StateDescriptor.Aggregating<IN2, ACC, OUT2> descriptor) {
        return backend.state(checkName(descriptor));
    }

    private static <D extends StateDescriptor> D checkName(D descriptor) {
        if (descriptor.name().startsWith(RESERVED_PREFIX)) {
            throw new IllegalArgumentException("keyed state '" + descriptor.name() + "': names starting with '"
                    + RESERVED_PREFIX + "' are reserved for the runtime (timers); choose another name");
        }
        return descriptor;
    }
}
