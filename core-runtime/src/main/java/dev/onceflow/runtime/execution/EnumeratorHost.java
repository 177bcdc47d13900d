package dev.onceflow.runtime.execution;

import dev.onceflow.runtime.checkpoint.CheckpointMetadata;
import dev.onceflow.runtime.checkpoint.RestoredCheckpoint;
import dev.onceflow.runtime.task.SourceTask;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.source.ReplayableSource;
import dev.onceflow.spi.source.SourceSplit;
import dev.onceflow.spi.source.SplitEnumerator;
import dev.onceflow.spi.source.SplitEnumeratorContext;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs a source's {@link SplitEnumerator} on the coordinator thread and delivers its assignments
 * to the readers' mailboxes. Because checkpoint triggers travel the same way, after the
 * enumerator state was snapshotted, every split is in exactly one snapshot (rule SRC-3).
 */
final class EnumeratorHost<SplitT extends SourceSplit, StateT> implements SplitEnumeratorContext<SplitT> {

    private final String uid;
    private final ReplayableSource<?, SplitT, StateT> source;
    private final ScheduledExecutorService executor;
    private final Consumer<Throwable> onFailure;
    private List<SourceTask> readers;
    private SplitEnumerator<SplitT, StateT> enumerator;

    EnumeratorHost(String uid, ReplayableSource<?, SplitT, StateT> source, ScheduledExecutorService executor,
            Consumer<Throwable> onFailure) {
        this.uid = uid;
        this.source = source;
        this.executor = executor;
        this.onFailure = onFailure;
    }

    /** Creates or restores the enumerator and starts it. Coordinator thread. */
    void start(List<SourceTask> sourceTasks, RestoredCheckpoint restored) throws Exception {
        this.readers = sourceTasks;
        CheckpointMetadata.EnumeratorStateRef state = restored == null ? null
                : restored.enumeratorState(uid).orElse(null);
        if (state != null) {
            StateT restoredState = source.enumeratorStateSerializer().deserialize(state.version(), state.state());
            enumerator = source.restoreEnumerator(this, restoredState);
        } else {
            enumerator = source.createEnumerator(this);
        }
        enumerator.start();
    }

    String uid() {
        return uid;
    }

    CheckpointMetadata.EnumeratorStateRef snapshot(long checkpointId) throws Exception {
        SimpleVersionedSerializer<StateT> serializer = source.enumeratorStateSerializer();
        return new CheckpointMetadata.EnumeratorStateRef(uid, serializer.version(),
                serializer.serialize(enumerator.snapshotState(checkpointId)));
    }

    void addReader(int subtask) {
        guarded(() -> enumerator.addReader(subtask));
    }

    void handleSplitRequest(int subtask) {
        guarded(() -> enumerator.handleSplitRequest(subtask));
    }

    void notifyComplete(long checkpointId) {
        guarded(() -> enumerator.notifyCheckpointComplete(checkpointId));
    }

    void notifyAborted(long checkpointId) {
        guarded(() -> enumerator.notifyCheckpointAborted(checkpointId));
    }

    void close() {
        if (enumerator != null) {
            try {
                enumerator.close();
            } catch (Exception e) {
                // closing after the job ended; nothing depends on it
            }
        }
    }

    @Override
    public int parallelism() {
        return readers.size();
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public void assignSplits(int subtaskIndex, List<SplitT> splits) {
        List<SplitT> copy = List.copyOf(splits);
        SourceTask task = readers.get(subtaskIndex);
        task.gate().sendMail(() -> ((dev.onceflow.runtime.operator.SourceOperator) task.sourceOperator()).addSplits(copy));
    }

    @Override
    public void signalNoMoreSplits(int subtaskIndex) {
        SourceTask task = readers.get(subtaskIndex);
        task.gate().sendMail(() -> task.sourceOperator().notifyNoMoreSplits());
    }

    @Override
    public void runPeriodically(Runnable action, Duration period) {
        executor.scheduleWithFixedDelay(() -> guarded(action::run), period.toMillis(), period.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private void guarded(ThrowingRunnable action) {
        try {
            action.run();
        } catch (Throwable t) {
            onFailure.accept(new Exception("split enumerator of source '" + uid + "' failed: " + t, t));
        }
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
