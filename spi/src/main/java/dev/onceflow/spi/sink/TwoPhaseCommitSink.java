package dev.onceflow.spi.sink;

import dev.onceflow.spi.serialization.SimpleVersionedSerializer;

/**
 * A sink that reaches exactly-once with one external transaction per checkpoint and subtask.
 *
 * <p>The runtime opens a transaction, writes every record between two barriers into it,
 * pre-commits it when barrier {@code n} arrives (making it durable but invisible), stores its
 * handle in checkpoint {@code n}, and commits it only after checkpoint {@code n} is complete.
 * After a crash it commits the pre-committed handles found in the restored checkpoint, aborts the
 * transaction that was open at that checkpoint, and asks the writer to abort any transaction the
 * checkpoint never knew of. The per-subtask work is done by a {@link TransactionalWriter}.
 *
 * <p>Requirements on the external system: a pre-committed transaction survives the death of the
 * writer and can be committed or aborted later by another process given only its handle (Kafka
 * transactions, PostgreSQL {@code PREPARE TRANSACTION}, XA, rename-on-commit files).
 *
 * @param <IN> records written
 * @param <TXN> the transaction handle: a small immutable value (a transactional id and producer
 *     epoch, a global transaction id, a list of pending files), never a live connection
 */
public non-sealed interface TwoPhaseCommitSink<IN, TXN> extends Sink<IN> {

    /**
     * Creates the writer of one parallel subtask. Called on that subtask's task thread, once per
     * attempt, before any of the writer's methods.
     */
    TransactionalWriter<IN, TXN> createWriter(SinkContext context) throws Exception;

    /** Writes transaction handles into checkpoints. */
    SimpleVersionedSerializer<TXN> transactionSerializer();
}
