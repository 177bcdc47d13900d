package dev.onceflow.spi.sink;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

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

    /**
     * Waits until {@link #durable()} completes and returns the handle: how a writer that overrides
     * {@link TransactionalWriter#preCommitAsync} implements {@link TransactionalWriter#preCommit}
     * ({@code return preCommitAsync(transaction).awaitDurable();}), which the Flink bridge calls.
     *
     * <p><b>Caller, thread and when.</b> The writer, on the task thread, inside {@code preCommit},
     * right after its own {@code preCommitAsync} for the transaction; never on a thread the stage
     * needs in order to complete. Blocks until the stage completes; calling it again returns at
     * once with the same outcome.
     *
     * <p><b>What it assumes.</b> That the stage supports {@code toCompletableFuture()}, as every
     * {@link CompletableFuture} does (another stage may throw {@code UnsupportedOperationException}).
     *
     * <p><b>After a crash.</b> Once this returns, rule 2PC-2 holds for the handle, as after a
     * synchronous {@code preCommit}. If the process dies while waiting, the checkpoint holding the
     * handle never completed: the transaction is one the restored checkpoint does not know of,
     * and the next attempt's {@link TransactionalWriter#abortLingering} removes it (2PC-7). If this
     * throws, the transaction may not be durable, and the exception fails the job as a failed
     * pre-commit does.
     *
     * @return {@link #handle()}
     * @throws Exception what made the stage fail, unwrapped from the future's {@code ExecutionException}
     *     (a cancelled stage's {@code CancellationException} as it is)
     * @throws InterruptedException if the thread was interrupted while waiting; as with
     *     {@code Future.get}, its interrupt status is then cleared, so a caller that does not rethrow
     *     this exception must restore it. The stage goes on.
     */
    public TXN awaitDurable() throws Exception {
        try {
            durable.toCompletableFuture().get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw e;
        }
        return handle;
    }

    /** A handle that is durable already: what a synchronous {@link TransactionalWriter#preCommit} gives. */
    public static <TXN> PreCommitted<TXN> durable(TXN handle) {
        return new PreCommitted<>(handle, CompletableFuture.completedFuture(null));
    }
}
