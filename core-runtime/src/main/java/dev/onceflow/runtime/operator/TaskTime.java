package dev.onceflow.runtime.operator;

import dev.onceflow.runtime.task.StreamElement;
import dev.onceflow.runtime.task.Task;

/**
 * The time an operator chain sees: the timestamp of the record being processed (set by the task or
 * the source for each record, read by the channel writer and by functions) and the wall clock
 * with callbacks on the task thread. One per task; used on its task thread only.
 */
public final class TaskTime {

    /** Runs actions on the task thread later. */
    @FunctionalInterface
    public interface Scheduler {

        /** Queues {@code action} as mail of the task after {@code delayMillis}; it runs on the task thread. */
        void schedule(long delayMillis, Runnable action);
    }

    private final Scheduler scheduler;
    private long timestamp = StreamElement.NO_TIMESTAMP;

    public TaskTime(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** The current record's timestamp, or {@link StreamElement#NO_TIMESTAMP}. */
    public long timestamp() {
        return timestamp;
    }

    public void setTimestamp(long value) {
        timestamp = value;
    }

    public long currentProcessingTime() {
        return System.currentTimeMillis();
    }

    /** An action on the task thread that may throw what operator code throws. */
    @FunctionalInterface
    public interface TimedAction {
        void run() throws Exception;
    }

    /**
     * Runs {@code action} on the task thread once the wall clock reached {@code time}, or soon if it
     * has. A checked exception fails the task like one thrown from a record.
     */
    public void runAt(long time, TimedAction action) {
        scheduler.schedule(Math.max(0, time - currentProcessingTime()), () -> {
            try {
                action.run();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new Task.ChainException(e);
            }
        });
    }
}
