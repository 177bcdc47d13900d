package dev.onceflow.runtime.task;

import dev.onceflow.runtime.checkpoint.CheckpointBarrier;
import java.util.List;

/** What travels through a channel: batches of records, barriers, and the end of the stream. */
public sealed interface StreamElement permits StreamElement.Records, StreamElement.Barrier, StreamElement.EndOfData {

    /** Records in the order they were emitted. Batching keeps channel hand-offs off the hot path. */
    record Records(List<Object> records) implements StreamElement {
    }

    /** A checkpoint barrier. */
    record Barrier(CheckpointBarrier barrier) implements StreamElement {
    }

    /** The upstream subtask finished; nothing follows on this channel. */
    enum EndOfData implements StreamElement {
        INSTANCE
    }
}
