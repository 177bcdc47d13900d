package dev.onceflow.runtime.operator;

import java.util.concurrent.TimeUnit;

/**
 * Passes records on at no more than a fixed rate, so that any source, however fast, feeds a job
 * slowly enough for crash tests to hit it while it runs. Each record waits until its time, on the
 * task thread: a barrier or notification on the task's mailbox waits for the records ahead of it.
 * Chained behind a source that hands over a batch per poll (the Kafka source: up to 500 records),
 * that is the whole batch, 5 s at 100 records per second per subtask.
 */
public final class ThrottleOperator<T> extends StreamOperator<T> {

    private static final long MAX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final long totalPerSecond;
    private double nanosPerRecord;
    private long startNanos;
    private long emitted;

    /** @param totalPerSecond the rate of all subtasks together */
    public ThrottleOperator(long totalPerSecond) {
        if (totalPerSecond < 1) {
            throw new IllegalArgumentException("throttle rate must be >= 1 record per second");
        }
        this.totalPerSecond = totalPerSecond;
    }

    @Override
    public void open() {
        nanosPerRecord = 1e9 * context.parallelism() / totalPerSecond;
        startNanos = System.nanoTime();
    }

    @Override
    public void processElement(T record) throws Exception {
        long due = startNanos + (long) (emitted * nanosPerRecord);
        // Until its time, not one slice: with one slice per record, any rate below one record per
        // slice and subtask (200 per second) ran at that floor instead.
        long ahead;
        while ((ahead = due - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(Math.min(ahead, MAX_WAIT_NANOS));
        }
        emitted++;
        output.collect(record);
    }
}
