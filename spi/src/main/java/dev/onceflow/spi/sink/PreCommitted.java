package dev.onceflow.spi.sink;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What {@link TransactionalWriter#preCommitAsync} returns: the handle that goes into the
 * checkpoint, known at the barrier, and the stage that completes once the transaction is durable
 * (rule 2PC-2 holds for the handle from then on).
 *
 * @param handle the handle to store in the checkpoint; final: the writer may not change what it
 *     describes once it is returned (a recorded file length, a producer epoch)
 * @param durable completes normally when the transaction survives the death of this process, or
 *     exceptionally when it cannot be made durable; it must complete without the task thread's help
 * @param <TXN> the transaction handle
 */
public record PreCommitted<TXN>(TXN handle, CompletionStage<Void> durable) {

    public PreCommitted {
        Objects.requireNonNull(handle, "handle");
        Objects.requireNonNull(durable, "durable");
    }

    /** A handle that is durable already: what a synchronous {@link TransactionalWriter#preCommit} gives. */
    public static <TXN> PreCommitted<TXN> durable(TXN handle) {
        return new PreCommitted<>(handle, CompletableFuture.completedFuture(null));
    }
}
