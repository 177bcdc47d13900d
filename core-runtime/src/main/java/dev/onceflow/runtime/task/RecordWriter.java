package dev.onceflow.runtime.task;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import dev.onceflow.runtime.graph.Transformation;
import dev.onceflow.runtime.operator.TaskTime;
import dev.onceflow.runtime.state.KeyGroups;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The output of a task to the next stage: one channel per downstream subtask, records batched per
 * channel. A batch is handed over when it is full, when the task would otherwise wait (so low
 * rates see no added latency), and before every barrier or watermark (so neither overtakes
 * records). Each record keeps the timestamp the task had when it was emitted.
 */
public final class RecordWriter {

    private final InputGate[] targets;
    private final int channelIndex;
    private final Transformation.Partitioning partitioning;
    private final int maxParallelism;
    private final int batchSize;
    private final TaskTime time;
    private final List<Object>[] buffers;
    private final long[][] timestamps;
    /** Behind a {@code keyBy}: per channel, the keys and key groups of the buffered records, handed over with them. */
    private final Object[][] keys;
    private final int[][] keyGroups;
    /** Whether a record of the channel's buffer has a timestamp; batches without any carry none. */
    private final boolean[] timed;
    private int roundRobin;
    private long backpressureNanos;

    @SuppressWarnings({"unchecked", "rawtypes"})
    public RecordWriter(InputGate[] targets, int channelIndex, Transformation.Partitioning partitioning,
            int maxParallelism, int batchSize, TaskTime time) {
        this.targets = targets;
        this.channelIndex = channelIndex;
        this.partitioning = partitioning;
        this.maxParallelism = maxParallelism;
        this.batchSize = batchSize;
        this.time = time;
        this.buffers = new List[targets.length];
        this.timestamps = new long[targets.length][batchSize];
        this.timed = new boolean[targets.length];
        for (int i = 0; i < targets.length; i++) {
            buffers[i] = new ArrayList<>(batchSize);
        }
        boolean hashed = partitioning instanceof Transformation.Partitioning.Hash;
        this.keys = hashed ? new Object[targets.length][batchSize] : null;
        this.keyGroups = hashed ? new int[targets.length][batchSize] : null;
        this.roundRobin = channelIndex % targets.length;
    }

    public void emit(Object record) throws Exception {
        if (partitioning instanceof Transformation.Partitioning.Broadcast) {
            for (int target = 0; target < targets.length; target++) {
                emit(target, record);
            }
        } else if (partitioning instanceof Transformation.Partitioning.Hash hash) {
            // Selected once here, for the channel and for the keyed operator that receives it.
            Object key = hash.keySelector().getKey(record);
            int group = KeyGroups.keyGroupOf(key, maxParallelism);
            int target = KeyGroups.subtaskOf(group, maxParallelism, targets.length);
            int index = buffers[target].size();
            keys[target][index] = key;
            keyGroups[target][index] = group;
            emit(target, record);
        } else {
            emit(select(), record);
        }
    }

    private void emit(int target, Object record) throws InterruptedException {
        List<Object> buffer = buffers[target];
        long timestamp = time.timestamp();
        if (timestamp != StreamElement.NO_TIMESTAMP) {
            timed[target] = true;
        }
        timestamps[target][buffer.size()] = timestamp;
        buffer.add(record);
        if (buffer.size() >= batchSize) {
            flush(target);
        }
    }

    private int select() {
        if (targets.length == 1) {
            return 0;
        }
        roundRobin = roundRobin + 1 == targets.length ? 0 : roundRobin + 1;
        return roundRobin;
    }

    /** Hands every partial batch to its channel. */
    public void flushAll() throws InterruptedException {
        for (int i = 0; i < targets.length; i++) {
            if (!buffers[i].isEmpty()) {
                flush(i);
            }
        }
    }

    private void flush(int target) throws InterruptedException {
        StreamElement.Records batch = takeBatch(target);
        // Timed per batch, not per record: two clock reads per up to 256 records. Without
        // backpressure a put takes well under a microsecond; a full channel makes it wait.
        long start = System.nanoTime();
        targets[target].put(channelIndex, batch);
        backpressureNanos += System.nanoTime() - start;
    }

    /** The channel's partial batch, handed over; the channel starts a new one. */
    private StreamElement.Records takeBatch(int target) {
        List<Object> batch = buffers[target];
        buffers[target] = new ArrayList<>(batchSize);
        long[] batchTimestamps = timed[target] ? Arrays.copyOf(timestamps[target], batch.size()) : null;
        timed[target] = false;
        if (keys == null) {
            return new StreamElement.Records(batch, batchTimestamps);
        }
        // Handed over whole, as the list is: the receiver reads them while this channel fills new ones.
        Object[] batchKeys = keys[target];
        int[] batchGroups = keyGroups[target];
        keys[target] = new Object[batchSize];
        keyGroups[target] = new int[batchSize];
        return new StreamElement.Records(batch, batchTimestamps, batchKeys, batchGroups);
    }

    /**
     * Nanoseconds this writer spent handing record batches to channels, nearly all of it waiting for
     * a full channel to have room: the backpressure its task felt. Written by the task thread only
     * (a plain field); other threads may read a slightly stale value.
     */
    public long backpressureNanos() {
        return backpressureNanos;
    }

    /**
     * Sends an unaligned barrier to every channel ahead of the records queued there (see
     * {@link InputGate#putPriority}). The partial batch of each channel goes first, without waiting
     * for room: waiting would hold the barrier behind the backpressure it is meant to overtake.
     */
    public void broadcastPriority(CheckpointBarrier barrier) {
        for (int i = 0; i < targets.length; i++) {
            if (!buffers[i].isEmpty()) {
                targets[i].putUnbounded(channelIndex, takeBatch(i));
            }
            targets[i].putPriority(channelIndex, barrier);
        }
    }

    /** Flushes, then sends {@code element} (a watermark, its status, a barrier or the end) to every channel. */
    public void broadcast(StreamElement element) throws InterruptedException {
        flushAll();
        for (InputGate target : targets) {
            target.put(channelIndex, element);
        }
    }
}
