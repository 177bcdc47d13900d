package dev.onceflow.runtime.metrics;

/**
 * Records one operator of one task emitted. Incremented for every record on the task thread, so
 * it is a plain field: no atomic, no volatile, no Micrometer call on the hot path. Meters read it
 * from other threads and may see a slightly stale value; the value a finished task leaves is exact
 * once its thread has ended.
 */
public final class RecordCounter {

    private long count;

    /** Task thread only. */
    public void increment() {
        count++;
    }

    public long count() {
        return count;
    }
}
