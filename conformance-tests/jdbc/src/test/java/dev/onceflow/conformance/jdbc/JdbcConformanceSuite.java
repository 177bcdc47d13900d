package dev.onceflow.conformance.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.ConformanceCase;
import dev.onceflow.conformance.JobProcess;
import dev.onceflow.conformance.Rule;
import dev.onceflow.conformance.SinkConformanceSuite;
import dev.onceflow.conformance.SinkExternalSystem;
import dev.onceflow.runtime.fault.FaultPoints;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The sink suite plus faults on the database's side, for each mode of the JDBC sink and each
 * database: the server restarted while checkpointed rows wait for their commit, and the sink's
 * session killed in the middle of a transaction.
 */
abstract class JdbcConformanceSuite extends SinkConformanceSuite {

    /** The database, configured for the sink mode under test. */
    protected abstract JdbcDatabase newDatabase();

    @Override
    protected final SinkExternalSystem externalSystem() {
        return newDatabase();
    }

    private JdbcDatabase database() {
        return (JdbcDatabase) system();
    }

    /**
     * EO-1 (2PC-3 for exactly-once mode) across a server restart: checkpoint 3 completed and the job stalls before telling the
     * sinks, so its rows are prepared (exactly-once) or still in the checkpoint (write-ahead) while
     * the database restarts. The job must then commit them, by retrying or by failing over and
     * recovering, and lose or repeat nothing.
     */
    @Test
    void database_serverRestartBetweenPrepareAndCommit() throws Exception {
        newCase("database_serverRestartBetweenPrepareAndCommit", true).assertExactlyOnceAcross("database restarted",
                FaultPoints.COORDINATOR_AFTER_COMPLETE_BEFORE_NOTIFY, 3, 8000, () -> database().restart());
    }

    /**
     * EO-1 when the database ends the sink's session in the middle of a transaction
     * ({@code pg_terminate_backend}, MariaDB's {@code KILL}): the transaction is gone, the job
     * fails over, and the records are replayed from the last checkpoint.
     */
    @Test
    void database_sinkSessionTerminatedMidTransaction() throws Exception {
        ConformanceCase c = newCase("database_sinkSessionTerminatedMidTransaction", true);
        // One row per batch: every record reaches the database at once, so the sink's transaction is
        // open on the server for most of each checkpoint interval, not only while a batch is flushed.
        c.use(c.spec().withSinkOption("batch-size", 1));
        JobProcess job = c.start("latest", JobProcess.Faults.NONE);
        AtomicInteger terminated = new AtomicInteger();
        Awaitility.await("a sink session inside a transaction").atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> terminated.addAndGet(database().terminateSinkSessionsInTransaction()) > 0
                        || !job.isAlive());
        assertThat(terminated.get()).as("[%s] no sink session was inside a transaction before the job ended; log:%n%s",
                c.destination().name(), job.tail()).isPositive();
        int status = job.await(5);
        c.countCrash("server-side kill of " + terminated.get() + " sink session(s) (job exit " + status + ")");
        c.finish();
        c.assertExactlyOnce(Rule.EO_1);
    }
}
