package dev.onceflow.runtime.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import dev.onceflow.runtime.checkpoint.CheckpointKind;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.checkpoint.CheckpointMetadata;
import dev.onceflow.runtime.checkpoint.CheckpointStorage;
import dev.onceflow.runtime.config.CheckpointingMode;
import dev.onceflow.runtime.config.CommitRetry;
import dev.onceflow.runtime.operator.OperatorContext;
import dev.onceflow.runtime.operator.StreamOperator;
import dev.onceflow.runtime.operator.TaskTime;
import dev.onceflow.runtime.state.OperatorSnapshot;
import dev.onceflow.runtime.state.RestoredState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Watermarks and barrier alignment in a real {@link ProcessingTask} with two input channels: a
 * watermark behind a channel's barrier stays queued with that channel's records until every
 * channel delivered the barrier, so the snapshot sees exactly the event time (and the timers it
 * fired) of the input before the barriers. Event time combines the channels' watermarks by their
 * minimum, also across the alignment.
 */
@Timeout(30)
class WatermarkAlignmentTest {

    @TempDir
    Path dir;

    /** What the operator saw, in order: {@code w:<event time>}, {@code r:<record>}, {@code snapshot:<id>}. */
    private final List<String> seen = new ArrayList<>();
    private final ConcurrentLinkedQueue<Long> acknowledged = new ConcurrentLinkedQueue<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    @Test
    void aWatermarkBehindABarrierWaitsForTheAlignmentAndTheSnapshotSeesOnlyTheEventTimeBeforeIt() throws Exception {
        InputGate gate = new InputGate(2, 16);
        CheckpointBarrier barrier = new CheckpointBarrier(1, 0, CheckpointKind.CHECKPOINT, false);
        // Channel 0 delivers its barrier first; the watermark 100 and record "a" behind it must wait.
        gate.put(0, new StreamElement.Watermark(10));
        gate.put(0, new StreamElement.Barrier(barrier));
        gate.put(0, new StreamElement.Watermark(100));
        gate.put(0, new StreamElement.Records(List.of("a")));
        gate.put(1, new StreamElement.Watermark(20));
        gate.put(1, new StreamElement.Records(List.of("b")));

        ProcessingTask task = task(gate);
        task.start();
        // Channel 1 has not delivered its barrier: nothing behind channel 0's may have been processed.
        await().atMost(Duration.ofSeconds(10)).until(() -> seenNow().contains("r:b"));
        gate.put(1, new StreamElement.Barrier(barrier));
        await().atMost(Duration.ofSeconds(10)).until(() -> seenNow().contains("r:a") || failure.get() != null);
        task.cancel();
        task.join(5_000);

        assertThat(failure.get()).as("task failure").isNull();
        List<String> order = seenNow();
        int snapshot = order.indexOf("snapshot:1");
        assertThat(snapshot).as("the snapshot was taken").isPositive();
        assertThat(order.subList(0, snapshot)).as("before the snapshot: the input before the barriers only, "
                + "event time the lower of the two channels' watermarks")
                .containsExactlyInAnyOrder("w:10", "r:b");
        // Channel 0's watermark 100 now counts: event time moves to channel 1's 20, the lower one.
        assertThat(order.subList(snapshot + 1, order.size())).as("after it: what channel 0's barrier held back")
                .containsExactly("w:20", "r:a");
        await().atMost(Duration.ofSeconds(10)).until(() -> acknowledged.contains(1L));
    }

    private List<String> seenNow() {
        synchronized (seen) {
            return new ArrayList<>(seen);
        }
    }

    private void see(String event) {
        synchronized (seen) {
            seen.add(event);
        }
    }

    private ProcessingTask task(InputGate gate) throws Exception {
        CheckpointStorage storage = new CheckpointStorage(CheckpointLocation.of(dir.resolve("checkpoints")));
        Executor direct = Runnable::run;
        TaskEnvironment environment = new TaskEnvironment() {
            @Override
            public void acknowledge(Task task, long checkpointId, CheckpointMetadata.TaskStateRef state,
                    long alignmentNanos) {
                acknowledged.add(checkpointId);
            }

            @Override
            public void decline(long checkpointId, Throwable cause) {
                failure.compareAndSet(null, cause);
            }

            @Override
            public void fail(Throwable cause) {
                failure.compareAndSet(null, cause);
            }

            @Override
            public void sourceEnded(int subtask) {
            }

            @Override
            public void finished(Task task) {
            }

            @Override
            public Executor snapshotExecutor() {
                return direct;
            }

            @Override
            public CheckpointStorage storage() {
                return storage;
            }
        };
        Recorder recorder = new Recorder();
        recorder.setup(new OperatorContext("alignment", "recorder", "recorder", 0, 1, 128, 1, "attempt-1",
                CheckpointingMode.EXACTLY_ONCE, 1, CommitRetry.DEFAULT, null, Optional.empty(),
                new TaskTime((delay, action) -> gate.sendMail(action)), null, null), record -> { });
        return new ProcessingTask("stage1", 0, 1, List.of("recorder"), gate, List.of(recorder), null, environment,
                uid -> RestoredState.fresh(1), CheckpointingMode.EXACTLY_ONCE, false, null, 2);
    }

    /** Writes down every watermark, record and snapshot it gets, on the task thread. */
    private final class Recorder extends StreamOperator<Object> {

        @Override
        public void processElement(Object record) {
            see("r:" + record);
        }

        @Override
        public void processWatermark(long watermark) {
            see("w:" + watermark);
        }

        @Override
        public OperatorSnapshot snapshotState(long checkpointId) {
            see("snapshot:" + checkpointId);
            return OperatorSnapshot.EMPTY;
        }
    }
}
