package dev.onceflow.runtime.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.spi.record.Event;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Controlling a running job: cancel ends it promptly and settles every savepoint request. */
@Timeout(60)
class JobClientTest {

    private static volatile CountDownLatch blocked;

    @TempDir
    Path dir;

    @BeforeEach
    void setUp() {
        blocked = new CountDownLatch(1);
    }

    /** Parks the source task at {@code id} until the task is interrupted, so no checkpoint can complete. */
    private static Event blockAt(Event event, String id) throws InterruptedException {
        if (event.id().equals(id)) {
            blocked.countDown();
            new CountDownLatch(1).await();
        }
        return event;
    }

    /**
     * With a checkpoint in flight that can never complete (its source is stuck), cancelling must
     * still end the job at once and fail the pending savepoint, not wait for the checkpoint
     * timeout (10 minutes by default).
     */
    @Test
    void cancelEndsTheJobPromptlyEvenWithASavepointInFlight() throws Exception {
        JobClient client = new KeyedCountJob(dir.resolve("checkpoints"), dir.resolve("output"), 1_000_000)
                .parallelism(1).rowsPerSecond(20_000).map(event -> blockAt(event, "200")).executeAsync("cancelled");
        assertThat(blocked.await(20, TimeUnit.SECONDS)).as("the source reached the blocking record").isTrue();
        CompletableFuture<CheckpointLocation> savepoint = client.triggerSavepoint(false);

        client.cancel();

        JobResult result = client.result().get(5, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobResult.Status.CANCELLED);
        assertThat(savepoint).failsWithin(Duration.ofSeconds(5));
    }

    @Test
    void cancelOfARunningJobReportsCancelled() throws Exception {
        JobClient client = new KeyedCountJob(dir.resolve("checkpoints"), dir.resolve("output"), 1_000_000)
                .parallelism(1).rowsPerSecond(5_000).executeAsync("cancel-running");
        await().atMost(Duration.ofSeconds(20)).until(() -> client.progress().recordsRead() >= 100);

        client.cancel();

        JobResult result = client.result().get(30, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobResult.Status.CANCELLED);
        assertThat(result.restarts()).isZero();
        assertThat(client.triggerSavepoint(false)).failsWithin(Duration.ofSeconds(1));
    }
}
