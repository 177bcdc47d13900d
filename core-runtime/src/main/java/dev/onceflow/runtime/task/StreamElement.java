package dev.onceflow.runtime.task;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import java.util.List;

/**
 * What travels through a channel: batches of records, watermarks, barriers, and the end of the
 * stream. Elements of one channel are delivered in order, so a watermark or barrier never
 * overtakes the records sent before it.
 */
public sealed interface StreamElement permits StreamElement.Records, StreamElement.Watermark,
        StreamElement.WatermarkStatus, StreamElement.Barrier, StreamElement.EndOfData {

    /** A record without a timestamp. */
    long NO_TIMESTAMP = Long.MIN_VALUE;

    /**
     * Records in the order they were emitted. Batching keeps channel hand-offs off the hot path.
     *
     * @param timestamps each record's timestamp, same length as {@code records}; {@code null} when
     *        no record of the batch has one
     * @param keys behind a {@code keyBy}: each record's key, as the channel's key selector gave it;
     *        otherwise {@code null}. The receiving keyed operator uses it instead of selecting the
     *        key (and boxing a primitive one) a second time.
     * @param keyGroups with {@code keys}: each key's group, {@code KeyGroups.keyGroupOf(key, maxParallelism)}
     */
    record Records(List<Object> records, long[] timestamps, Object[] keys, int[] keyGroups) implements StreamElement {

        public Records(List<Object> records) {
            this(records, null);
        }

        public Records(List<Object> records, long[] timestamps) {
            this(records, timestamps, null, null);
        }

        public long timestamp(int index) {
            return timestamps == null ? NO_TIMESTAMP : timestamps[index];
        }
    }

    /** No record with a timestamp at or below {@code timestamp} follows on this channel. */
    record Watermark(long timestamp) implements StreamElement {
    }

    /**
     * The sender stopped (idle) or resumed (active) emitting: an idle channel does not hold back
     * the receiver's event time. Any record or watermark after it comes with an active status first.
     */
    enum WatermarkStatus implements StreamElement {
        IDLE, ACTIVE
    }

    /** A checkpoint barrier. */
    record Barrier(CheckpointBarrier barrier) implements StreamElement {
    }

    /** The upstream subtask finished; nothing follows on this channel. */
    enum EndOfData implements StreamElement {
        INSTANCE
    }
}
