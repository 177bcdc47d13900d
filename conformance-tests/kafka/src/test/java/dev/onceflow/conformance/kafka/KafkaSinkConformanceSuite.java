package dev.onceflow.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.ConformanceCase;
import dev.onceflow.conformance.JobProcess;
import dev.onceflow.conformance.Rule;
import dev.onceflow.conformance.SinkConformanceSuite;
import dev.onceflow.conformance.SinkExternalSystem;
import dev.onceflow.conformance.Verdict;
import dev.onceflow.runtime.fault.FaultPoints;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.admin.TransactionState;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The sink suite plus faults on the broker's side, for each mode of the Kafka sink: the broker
 * SIGKILLed while checkpointed records wait for their commit, and the job down for longer than the
 * broker keeps an open transaction.
 */
abstract class KafkaSinkConformanceSuite extends SinkConformanceSuite {

    private static final String STALL_POINT = FaultPoints.COORDINATOR_AFTER_COMPLETE_BEFORE_NOTIFY;
    private static final String STALL = STALL_POINT + "@3";
    private static final Duration TRANSACTION_TIMEOUT = Duration.ofSeconds(5);

    /** The sink's {@code mode} option under test. */
    protected abstract String mode();

    /**
     * Whether records of a completed checkpoint are lost when the broker aborts their transaction
     * before the job commits it (a job down longer than {@code transaction-timeout}): true where
     * the checkpoint holds only a handle to the broker's transaction (exactly-once), false where it
     * holds the records themselves (write-ahead). Where they are lost, the resumed job must fail.
     */
    protected abstract boolean losesPreCommittedDataAfterTimeout();

    @Override
    protected final SinkExternalSystem externalSystem() {
        return new KafkaSinkFixture(mode());
    }

    private KafkaSinkFixture fixture() {
        return (KafkaSinkFixture) system();
    }

    /**
     * EO-1 across a broker crash: checkpoint 3 completed and the job stalls before telling the
     * sinks, so its records are in open transactions (exactly-once) or still in the checkpoint
     * (write-ahead) when the broker is SIGKILLed and restarted. The job must then commit them, by
     * retrying or by failing over and recovering, and lose or repeat nothing.
     */
    @Test
    void broker_killedBetweenPreCommitAndCommit() throws Exception {
        // A short stall: the sinks are told to commit while the broker is still down or restarting.
        newCase("broker_killedBetweenPreCommitAndCommit", true).assertExactlyOnceAcross("broker SIGKILLed and restarted",
                STALL_POINT, 3, 2000, () -> {
                    fixture().broker().kill();
                    fixture().broker().restart();
                });
    }

    /**
     * The job SIGKILLed after checkpoint 3 completed and before the sinks committed it, and kept
     * down until the broker aborted the case's timed-out transactions ({@code transaction-timeout}
     * 5 s). Write-ahead mode still holds the records in the checkpoint and must deliver them
     * exactly once (EO-1). Exactly-once mode has lost them with the transaction: the resumed job
     * must fail and name the lost transaction, never finish as if nothing happened (2PC-5); the
     * case is reported as {@code failed-loudly} then.
     */
    @Test
    void broker_jobDownLongerThanTransactionTimeout() throws Exception {
        ConformanceCase c = newCase("broker_jobDownLongerThanTransactionTimeout", true);
        // The checkpoint timeout must stay below the transaction timeout, or the exactly-once sink
        // refuses to start (SinkContext.maxCommitWait: checkpoint timeout plus restart delays).
        c.use(c.spec().withTimeout("3s").withSinkOption("transaction-timeout", TRANSACTION_TIMEOUT.toSeconds() + "s"));
        JobProcess job = c.startStalledAt(STALL_POINT, 3, 120_000);
        List<String> open = fixture().transactions(c.destination()).entrySet().stream()
                .filter(t -> t.getValue() == TransactionState.ONGOING).map(Map.Entry::getKey).toList();
        job.kill();
        long killedAt = System.nanoTime();
        c.countCrash("job SIGKILLed at " + STALL + ", down until the broker aborted " + open);
        if (losesPreCommittedDataAfterTimeout()) {
            assertThat(open).as("[%s] transactions open while checkpoint 3 waits for its commit",
                    c.destination().name()).isNotEmpty();
        }
        // Down for at least the timeout, and until the broker has aborted whatever was open: a
        // resume before that would find the transactions still committable.
        Awaitility.await("the broker aborts the timed-out transactions " + open)
                .atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200))
                .until(() -> System.nanoTime() - killedAt > TRANSACTION_TIMEOUT.toNanos()
                        && !fixture().transactions(c.destination()).containsValue(TransactionState.ONGOING));
        if (!losesPreCommittedDataAfterTimeout()) {
            c.finish();
            c.assertExactlyOnce(Rule.EO_1);
            return;
        }
        long logBefore = Files.size(c.log());
        JobProcess resumed = c.start("latest", JobProcess.Faults.NONE);
        int status = resumed.await(5);
        byte[] log = Files.readAllBytes(c.log());
        String resumedLog = new String(log, (int) logBefore, log.length - (int) logBefore, StandardCharsets.UTF_8);
        List<String> named = open.stream().filter(resumedLog::contains).toList();
        boolean namesTimeout = resumedLog.toLowerCase(Locale.ROOT).contains("transaction timeout");
        boolean failedLoudly = status != 0 && namesTimeout && !named.isEmpty();
        c.recordFailedLoudly(Rule.TWO_PC_5, failedLoudly);
        if (!failedLoudly) {
            Verdict verdict = c.verdict();
            throw new AssertionError("[" + Rule.TWO_PC_5.id() + "] " + Rule.TWO_PC_5.statement() + "\n  case: "
                    + c.destination().name() + "\n  fault: job down " + TRANSACTION_TIMEOUT.toSeconds()
                    + "+ s after " + STALL + ", the broker aborted " + open + "\n  expected: the resumed job fails"
                    + " and its log names \"transaction timeout\" and one of those ids\n  found: exit status " + status
                    + ", ids named " + named + ", \"transaction timeout\" "
                    + (namesTimeout ? "present" : "absent") + "; committed output: "
                    + verdict.describe() + "\n  check: " + Rule.TWO_PC_5.hint() + "\n  job log: " + c.log()
                    + "\n" + resumed.tail());
        }
    }
}
