package dev.onceflow.runtime.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.execution.JobClient;
import dev.onceflow.runtime.execution.JobResult;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.PreCommitted;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TransactionalWriter#preCommitAsync}: the task thread goes on writing the next transaction
 * while the previous one becomes durable, and the runtime keeps rule 2PC-2 for it: no checkpoint
 * holding the handle completes, and no commit happens, before the durable stage completes; a stage
 * that fails ends the attempt and its transaction is never committed.
 */
@Timeout(60)
class AsyncPreCommitTest {

    /** Durable stages handed out, by transaction (= the checkpoint id it was begun for); the test completes them. */
    private static final Map<Long, CompletableFuture<Void>> DURABLE = new ConcurrentHashMap<>();
    /** Records written into each transaction. */
    private static final Map<Long, AtomicLong> WRITTEN = new ConcurrentHashMap<>();
    private static final List<Long> COMMITTED = new CopyOnWriteArrayList<>();
    /** Commits of a transaction whose stage had not completed: must stay empty. */
    private static final List<Long> COMMITTED_BEFORE_DURABLE = new CopyOnWriteArrayList<>();

    @TempDir
    Path dir;

    @BeforeEach
    void setUp() {
        DURABLE.clear();
        WRITTEN.clear();
        COMMITTED.clear();
        COMMITTED_BEFORE_DURABLE.clear();
    }

    @Test
    void checkpointCompletesAndCommitsOnlyAfterTheTransactionIsDurableWhileWritingGoesOn() throws Exception {
        JobClient client = start("durable-later");
        CompletableFuture<Void> first = awaitPreCommitted(1);

        // The task thread is not waiting for the stage: records keep going into the next transaction.
        await().atMost(Duration.ofSeconds(20)).until(() -> written(2) >= 500);
        assertThat(COMMITTED).as("nothing committed while checkpoint 1's transaction is not durable").isEmpty();
        assertThat(client.progress().lastCheckpoint()).as("checkpoint 1 not complete").isNull();

        first.complete(null);

        await().atMost(Duration.ofSeconds(20)).until(() -> COMMITTED.contains(1L));
        CompletableFuture<Void> second = awaitPreCommitted(2);
        assertThat(client.progress().lastCheckpoint().checkpointId()).isEqualTo(1);
        assertThat(client.progress().lastCheckpoint().completed()).isTrue();
        second.complete(null);
        await().atMost(Duration.ofSeconds(20)).until(() -> COMMITTED.contains(2L));
        client.cancel();
        assertThat(client.result().get(20, TimeUnit.SECONDS).status()).isEqualTo(JobResult.Status.CANCELLED);
        assertThat(COMMITTED_BEFORE_DURABLE).isEmpty();
        assertThat(COMMITTED).startsWith(1L, 2L);
    }

    @Test
    void aTransactionThatCannotBeMadeDurableFailsTheJobAndIsNeverCommitted() throws Exception {
        JobClient client = start("durable-never");
        CompletableFuture<Void> first = awaitPreCommitted(1);

        first.completeExceptionally(new IOException("the disk went away"));

        ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> client.result().get(20, TimeUnit.SECONDS));
        assertThat(messages(failure)).contains("checkpoint 1 could not be completed").contains("the disk went away");
        assertThat(COMMITTED).isEmpty();
        assertThat(client.progress().lastCheckpoint()).satisfiesAnyOf(
                last -> assertThat(last).isNull(),
                last -> assertThat(last.completed()).as("checkpoint %s completed", last.checkpointId()).isFalse());
    }

    private JobClient start(String name) throws Exception {
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(1)
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(Duration.ofMillis(50))
                        .withDirectory(dir.resolve("checkpoints")));
        env.fromSource(DatagenSource.builder().rows(10_000_000).keys(4).rowsPerSecond(20_000).build(), "events")
                .uid("events")
                .sinkTo(new LateDurableSink()).uid("late");
        return env.executeAsync(name);
    }

    private static CompletableFuture<Void> awaitPreCommitted(long transaction) {
        await().atMost(Duration.ofSeconds(20)).until(() -> DURABLE.containsKey(transaction));
        return DURABLE.get(transaction);
    }

    private static long written(long transaction) {
        AtomicLong count = WRITTEN.get(transaction);
        return count == null ? 0 : count.get();
    }

    private static String messages(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            text.append(t.getMessage()).append(" | ");
        }
        return text.toString();
    }

    /** Transactions are checkpoint ids; each pre-commit is durable only when the test says so. */
    static final class LateDurableSink implements TwoPhaseCommitSink<Event, Long> {

        @Override
        public TransactionalWriter<Event, Long> createWriter(SinkContext context) {
            return new TransactionalWriter<>() {
                @Override
                public Long beginTransaction(long checkpointId) {
                    WRITTEN.putIfAbsent(checkpointId, new AtomicLong());
                    return checkpointId;
                }

                @Override
                public void write(Long transaction, Event record) {
                    WRITTEN.get(transaction).incrementAndGet();
                }

                @Override
                public Long preCommit(Long transaction) throws Exception {
                    preCommitAsync(transaction).durable().toCompletableFuture().get();
                    return transaction;
                }

                @Override
                public PreCommitted<Long> preCommitAsync(Long transaction) {
                    return new PreCommitted<>(transaction,
                            DURABLE.computeIfAbsent(transaction, t -> new CompletableFuture<>()));
                }

                @Override
                public void commit(Long transaction) {
                    CompletableFuture<Void> durable = DURABLE.get(transaction);
                    if (durable == null || !durable.isDone() || durable.isCompletedExceptionally()) {
                        COMMITTED_BEFORE_DURABLE.add(transaction);
                    }
                    COMMITTED.add(transaction);
                }

                @Override
                public void abort(Long transaction) {
                }

                @Override
                public void recoverAndCommit(Long transaction) {
                    commit(transaction);
                }

                @Override
                public void recoverAndAbort(Long transaction) {
                }

                @Override
                public void abortLingering() {
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public SimpleVersionedSerializer<Long> transactionSerializer() {
            return Serializers.LONG;
        }
    }
}
