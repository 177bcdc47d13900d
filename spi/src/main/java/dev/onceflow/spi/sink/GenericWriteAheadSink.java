package dev.onceflow.spi.sink;

import dev.onceflow.spi.serialization.SimpleVersionedSerializer;

/**
 * A sink for systems without transactions that survive the writer: records are kept in
 * checkpointed state (the write-ahead log) and sent only after the checkpoint that holds them
 * completes. A {@link CheckpointCommitter} records in the external system which checkpoints were
 * sent, so a replay after a crash skips them.
 *
 * <p>Exactly-once holds only when sending and committing are atomic together or the send is
 * idempotent (WAL-3 in {@code docs/spec.md}); otherwise a crash between the two gives
 * at-least-once. The conformance suite measures which one a connector reaches.
 *
 * @param <IN> records written
 */
public non-sealed interface GenericWriteAheadSink<IN> extends Sink<IN> {

    /** Creates the writer of one parallel subtask, on its task thread. */
    WriteAheadWriter<IN> createWriter(SinkContext context) throws Exception;

    /** Creates the committer of one parallel subtask, on its task thread. */
    CheckpointCommitter createCommitter(SinkContext context) throws Exception;

    /** Writes records into the write-ahead log in the checkpoint. */
    SimpleVersionedSerializer<IN> recordSerializer();
}
