package dev.onceflow.conformance.selftest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import dev.onceflow.conformance.CaseResult;
import dev.onceflow.conformance.CaseVerdict;
import dev.onceflow.conformance.ConformanceReport;
import dev.onceflow.conformance.SelectedCase;
import dev.onceflow.runtime.fault.FaultPoints;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The suite proves it can fail: each deliberately broken connector breaks one rule of
 * {@code docs/spec.md}, and the one case that checks that rule must fail, name the rule first, and
 * name the evidence (the ids lost or duplicated, the file left behind). A suite that passed any
 * of these connectors would be passing connectors it cannot judge.
 *
 * <p>Each case runs one selected test of a {@link BrokenConnectorSuites} suite with the JUnit
 * Platform launcher; it starts child JVMs, so it takes seconds.
 */
class SuiteCatchesBrokenConnectorsTest {

    /** "lost 12 [3, 4, ...]": a non-zero count followed by the first ids. */
    private static final String SOME_IDS = " [1-9]\\d* \\[\\d+";

    /** 2PC-1: a sink that commits in preCommit shows data before the checkpoint completed. */
    @Test
    void commitInPreCommitBreaks2pc1() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.CommitAtPreCommitSuite.class,
                "required_2pc1_nothingVisibleBeforeTheCheckpointCompletes"),
                "sink-" + CommitAtPreCommitSinkFactory.IDENTIFIER);

        assertThat(run.failureMessage()).startsWith("[2PC-1] ")
                .contains("case: required_2pc1_nothingVisibleBeforeTheCheckpointCompletes")
                .contains("faults: " + FaultPoints.SINK_AFTER_PRECOMMIT + "@1")
                .containsPattern("visible before any checkpoint completed: [1-9]\\d* records, first ");
        assertCaseFailed(run, "2PC-1", "violated");
    }

    /**
     * WAL-1: a write-ahead sink that marks a segment sent before it sends it passes every case but
     * the crash at {@code sink.wal-mid-send}, where the restored operator finds the mark and skips
     * the segment, and its records are lost.
     */
    @Test
    void markingASegmentBeforeSendingItLosesItsRecords() throws Exception {
        List<String> points = FaultPoints.ALL.stream().filter(p -> !p.equals(FaultPoints.SINK_DURING_RECOVERY)).toList();
        SelectedCase run = SelectedCase.run(SelectedCase.dynamicTest(BrokenConnectorSuites.MarksBeforeSendSuite.class,
                "required_eo1_crashAtEveryFaultPoint", points.indexOf(FaultPoints.SINK_WAL_MID_SEND) + 1),
                "sink-" + MarksBeforeSendSinkFactory.IDENTIFIER);

        assertThat(run.failureMessage()).startsWith("[EO-1] ")
                .contains("faults: " + FaultPoints.SINK_WAL_MID_SEND + "@3")
                .containsPattern("lost" + SOME_IDS);
        assertCaseFailed(run, "EO-1", "violated");
    }

    /**
     * EO-6: a write-ahead sink whose committer keeps every mark takes the first run's marks for
     * the second run's segments when the job is started afresh without its checkpoints, and skips them.
     */
    @Test
    void takingAnEarlierRunsMarkerForOwnLosesTheFreshRunsRecords() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.KeepsEarlierRunsMarkersSuite.class,
                "required_eo6_freshStartAgainstUsedDestination"),
                "sink-" + MarksBeforeSendSinkFactory.KeepsEarlierRunsMarkers.IDENTIFIER);

        assertThat(run.failureMessage()).startsWith("[EO-6] ")
                .contains("case: required_eo6_freshStartAgainstUsedDestination")
                .containsPattern("second run lost" + SOME_IDS)
                .contains("first run's output unchanged");
        assertCaseFailed(run, "EO-6", "violated");
    }

    /**
     * 2PC-7 on a fresh start: the first run dies with a pre-committed transaction and its
     * checkpoints are deleted; a sink whose abortLingering does nothing delivers the second run
     * but leaves the first run's transaction behind.
     */
    @Test
    void freshStartThatLeavesTheAbandonedTransactionBreaks2pc7() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.NoAbortLingeringSuite.class,
                "required_eo6_freshStartAgainstUsedDestination"), "sink-" + NoAbortLingeringSinkFactory.IDENTIFIER);

        assertThat(run.failureMessage()).startsWith("[2PC-7] ")
                .contains("run 1 halted at sink.before-commit@3")
                .containsPattern("left behind after the fresh start: \\[in-progress file [^\\]]*\\.inprogress");
        assertCaseFailed(run, "2PC-7", "violated");
    }

    /** 2PC-4: a sink that publishes an already committed file again duplicates its records on a second restore. */
    @Test
    void nonIdempotentCommitBreaks2pc4() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.NonIdempotentCommitSuite.class,
                "required_2pc4_sameCheckpointRestoredTwice"), "sink-" + NonIdempotentCommitSinkFactory.IDENTIFIER);

        assertThat(run.failureMessage()).startsWith("[2PC-4] ")
                .containsPattern("duplicated" + SOME_IDS)
                .containsPattern("lost 0 ,");
        // Duplicates without losses are, as measured, at-least-once.
        CaseResult result = assertCaseFailed(run, "2PC-4", "at-least-once");
        assertThat(result.duplicated()).as("duplicated ids in the report").isPositive();
    }

    /** 2PC-7: a sink whose abortLingering does nothing leaves the unknown transaction's file behind. */
    @Test
    void noAbortLingeringBreaks2pc7() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.NoAbortLingeringSuite.class,
                "required_2pc7_lingeringTransactionsAreAborted"), "sink-" + NoAbortLingeringSinkFactory.IDENTIFIER);

        // Only a leftover is wrong, yet the case names 2PC-7 rather than the generic EO-4.
        assertThat(run.failureMessage()).startsWith("[2PC-7] ")
                .containsPattern("lost 0 , duplicated 0 ,")
                .containsPattern("left behind \\[in-progress file [^\\]]*\\.inprogress");
        // A transaction left behind breaks EO-4 whatever the data shows: the report says violated.
        CaseResult result = assertCaseFailed(run, "2PC-7", "violated");
        assertThat(result.leftovers()).as("leftovers in the report").isPositive();
    }

    /**
     * 2PC-7 when the lingering transaction blocks the replay, as a prepared transaction's row locks
     * do in a database: the restarted job hangs, and the case must end after the recovery timeout
     * naming 2PC-7 and what was left behind, not with a bare timeout.
     */
    @Test
    void lingeringTransactionThatBlocksTheReplayIsNamed() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.LockedByLingeringSuite.class,
                "required_2pc7_lingeringTransactionsAreAborted"), "sink-" + LockedByLingeringSinkFactory.IDENTIFIER,
                Map.of("onceflow.conformance.recovery-timeout-seconds", "15"));

        assertThat(run.failureMessage()).startsWith("[2PC-7] ")
                .contains("the job completed no checkpoint after its restart within 15 s and was killed")
                .containsPattern("left behind by earlier attempts and still there: \\[in-progress file [^\\]]*\\.inprogress")
                .contains("stalled: completed no checkpoint after its restart");
        CaseResult result = assertCaseFailed(run, "2PC-7", "violated");
        assertThat(result.faults()).as("faults in the report").contains("stalled: completed no checkpoint after its restart");
    }

    /** EO-3: a sink that swallows a failed commit loses that checkpoint's records in a plain bounded run. */
    @Test
    void droppedFailedCommitBreaksEo3() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.DropsFailedCommitSuite.class,
                "required_eo3_boundedJobCommitsEverything"), "sink-" + DropsFailedCommitSinkFactory.IDENTIFIER);

        assertThat(run.failureMessage()).startsWith("[EO-3] ")
                .contains("faults: none")
                .containsPattern("lost" + SOME_IDS);
        CaseResult result = assertCaseFailed(run, "EO-3", "violated");
        assertThat(result.lost()).as("lost ids in the report").isPositive();
    }

    /** 2PC-3: a sink that gives up on a handle whose commit failed (reporting success) loses its records. */
    @Test
    void swallowedCommitFailureBreaks2pc3() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.SwallowsCommitFailureSuite.class,
                "required_2pc3_commitFailingBeforeItTookEffectIsRetried"),
                "sink-" + SwallowsCommitFailureSinkFactory.IDENTIFIER);

        assertThat(run.failureMessage()).startsWith("[2PC-3] ")
                .contains("faults: first 2 commit attempts fail before the commit took effect (job exit 0)")
                .containsPattern("lost" + SOME_IDS);
        CaseResult result = assertCaseFailed(run, "2PC-3", "violated");
        assertThat(result.lost()).as("lost ids in the report").isPositive();
    }

    /** 2PC-3: the same sink, when every commit fails, lets the job exit 0 with its records not committed. */
    @Test
    void swallowedPermanentCommitFailureBreaks2pc3() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.SwallowsCommitFailureSuite.class,
                "required_2pc3_permanentCommitFailureFailsTheJob"), "sink-" + SwallowsCommitFailureSinkFactory.IDENTIFIER);

        assertThat(run.failureMessage()).startsWith("[2PC-3] ")
                .contains("faults: every commit of " + SwallowsCommitFailureSinkFactory.IDENTIFIER + " fails (job exit 0)")
                .contains("found: the job exited 0 although every commit failed: ")
                .containsPattern("lost" + SOME_IDS)
                .contains("first exception in the job log: ");
        assertCaseFailed(run, "2PC-3", "violated");
    }

    /**
     * 2PC-4 through a commit that failed after it took effect: the runtime's retry commits the
     * handle again, and a sink that publishes an already committed file again duplicates it. The
     * case names 2PC-4, not the 2PC-3 it is about.
     */
    @Test
    void nonIdempotentRetriedCommitBreaks2pc4() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.NonIdempotentCommitSuite.class,
                "required_2pc3_commitFailingAfterItTookEffectIsRetried"), "sink-" + NonIdempotentCommitSinkFactory.IDENTIFIER);

        assertThat(run.failureMessage()).startsWith("[2PC-4] ")
                .contains("faults: first 2 commit attempts fail after the commit took effect (job exit 0)")
                .containsPattern("duplicated" + SOME_IDS)
                .containsPattern("lost 0 ,");
        assertCaseFailed(run, "2PC-4", "at-least-once");
    }

    /**
     * 2PC-7 after a crash at parallelism 3 and a resume at 1: a sink whose abortLingering cleans up
     * only its own subtask index leaves the lingering files of subtasks 1 and 2 behind.
     */
    @Test
    void forgottenFormerSubtasksBreak2pc7() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.ForgetsFormerSubtasksSuite.class,
                "required_2pc7_crashAtParallelism3ResumeAt1AbortsFormerSubtasks"),
                "sink-" + ForgetsFormerSubtasksSinkFactory.IDENTIFIER);

        assertThat(run.failureMessage()).startsWith("[2PC-7] ")
                .containsPattern("lost 0 , duplicated 0 ,")
                .containsPattern("left behind \\[in-progress file [^\\]]*part-[12]-");
        CaseResult result = assertCaseFailed(run, "2PC-7", "violated");
        assertThat(result.leftovers()).as("leftovers in the report").isPositive();
    }

    /** SRC-1: a source that resumes one line after its restored position loses a record per restored split. */
    @Test
    void offByOneReplayBreaksSrc1() throws Exception {
        // The fault point cases are dynamic tests: select the one that crashes before a source's barrier.
        int crashBeforeBarrier = FaultPoints.ALL.indexOf(FaultPoints.SOURCE_BEFORE_BARRIER) + 1;
        SelectedCase run = SelectedCase.run(SelectedCase.dynamicTest(BrokenConnectorSuites.OffByOneFileSourceSuite.class,
                "required_eo1_crashAtEveryFaultPoint", crashBeforeBarrier),
                "source-" + OffByOneFileSourceFactory.IDENTIFIER);

        assertThat(run.finished()).extracting(SelectedCase.Finished::displayName)
                .containsExactly(FaultPoints.SOURCE_BEFORE_BARRIER);
        assertThat(run.failureMessage()).startsWith("[SRC-1] ")
                .contains("case: required_eo1_crashAt " + FaultPoints.SOURCE_BEFORE_BARRIER)
                .containsPattern("lost" + SOME_IDS)
                .containsPattern("duplicated 0 ,");
        CaseResult result = assertCaseFailed(run, "SRC-1", "violated");
        assertThat(result.lost()).as("lost ids in the report").isPositive();
        // The dynamic test that ran is the one the report lists, not a second case beside it.
        assertThat(result.name()).isEqualTo("required_eo1_crashAtEveryFaultPoint/" + FaultPoints.SOURCE_BEFORE_BARRIER);
        assertThat(run.report().verdicts().keySet()).as("cases in the report")
                .containsExactlyInAnyOrderElementsOf(SuiteReportsEveryCaseTest.casesOf(
                        BrokenConnectorSuites.OffByOneFileSourceSuite.class));
    }

    /** SRC-5: the same off-by-one source, driven in process from its deserialized splits. */
    @Test
    void offByOneRestoreBreaksSrc5() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.OffByOneFileSourceSuite.class,
                "required_src5_positionsSurviveTheSplitSerializer"), "source-" + OffByOneFileSourceFactory.IDENTIFIER);

        assertThat(run.failureMessage()).startsWith("[SRC-5] ")
                .containsPattern("lost" + SOME_IDS)
                .containsPattern("duplicated 0 ,");
        assertCaseFailed(run, "SRC-5", "violated");
    }

    /**
     * EO-1: the correct filesystem sink, run in AT_LEAST_ONCE mode through the skewed-barrier case
     * (one source's barrier held back, then a restore of that checkpoint), must be reported as
     * duplicates under EO-1, never as losses. The same case passes in EXACTLY_ONCE mode, so it is
     * the alignment that the suite checks.
     */
    @Test
    void atLeastOnceModeIsReportedAsDuplicates() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.FileSystemSinkSuite.class,
                "required_eo1_skewedBarriersAreAligned"), "sink-filesystem",
                Map.of("onceflow.conformance.mode", "at-least-once"));
        assertFailedWithDuplicatesOnly(run, "EO-1");
    }

    /**
     * IDEM-1: a sink that appends (a replayed record is a second line) but declares itself an
     * IdempotentSink is judged by exactly-once, and the duplicates a replay brings are reported
     * under IDEM-1, the rule it claims and breaks.
     */
    @Test
    void appendingSinkThatClaimsIdempotenceBreaksIdem1() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.ClaimsIdempotentSuite.class,
                "required_eo1_skewedBarriersAreAligned"), "sink-" + AppendingSinkFactory.ClaimsIdempotent.IDENTIFIER);

        assertFailedWithDuplicatesOnly(run, "IDEM-1");
    }

    /**
     * ALO-1: the same appending sink declared as what it is, an AtLeastOnceSink, passes the case that
     * replays records it already wrote: nothing lost, its duplicates counted, and the guarantee
     * shown is at-least-once.
     */
    @Test
    void atLeastOnceSinkPassesWithItsDuplicatesCounted() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.AppendingAtLeastOnceSuite.class,
                "required_eo1_skewedBarriersAreAligned"), "sink-" + AppendingSinkFactory.AtLeastOnce.IDENTIFIER);

        CaseResult result = assertCasePassed(run, "ALO-1");
        assertThat(result.duplicated()).as("duplicated ids in the report").isPositive();
        assertThat(result.lost()).as("lost ids in the report").isZero();
    }

    /**
     * An at-least-once sink is never reported exactly-once, even where a run without crashes gave
     * every id once: its contract does not promise it.
     */
    @Test
    void atLeastOnceSinkIsNeverReportedExactlyOnce() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.AppendingAtLeastOnceSuite.class,
                "required_eo3_boundedJobCommitsEverything"), "sink-" + AppendingSinkFactory.AtLeastOnce.IDENTIFIER);

        CaseResult result = assertCasePassed(run, "ALO-1");
        assertThat(result.duplicated()).as("duplicated ids without crashes").isZero();
    }

    /** The one case that ran failed under {@code rule} naming duplicated ids and no lost one: at-least-once, as measured. */
    private static void assertFailedWithDuplicatesOnly(SelectedCase run, String rule) {
        assertThat(run.failureMessage()).startsWith("[" + rule + "] ")
                .containsPattern("duplicated" + SOME_IDS)
                .containsPattern("lost 0 ,");
        CaseResult result = assertCaseFailed(run, rule, "at-least-once");
        assertThat(result.duplicated()).as("duplicated ids in the report").isPositive();
    }

    /** The one case that ran passed under {@code rule}, showing at-least-once. */
    private static CaseResult assertCasePassed(SelectedCase run, String rule) {
        assertThat(run.finished()).as("the tests that ran").hasSize(1);
        assertThat(run.finished().get(0).result().getStatus()).as("outcome: %s", run.finished().get(0).result())
                .isEqualTo(org.junit.platform.engine.TestExecutionResult.Status.SUCCESSFUL);
        CaseResult result = onlyRow(run, caseThatRan(run));
        assertThat(result.rule()).as("rule of the reported case").isEqualTo(rule);
        assertThat(result.verdict()).as("verdict of the reported case").isEqualTo(CaseVerdict.PASSED);
        assertThat(result.guarantee()).as("guarantee the case showed").isEqualTo("at-least-once");
        return result;
    }

    /**
     * The report lists the case under its rule, violated, with the guarantee its output showed, and
     * the suite's other cases as not run; a run of one case claims no guarantee.
     */
    private static CaseResult assertCaseFailed(SelectedCase run, String rule, String guarantee) {
        String ran = caseThatRan(run);
        assertThat(run.report().verdicts()).as("cases in the report").hasSizeGreaterThan(10);
        CaseResult result = onlyRow(run, ran);
        assertThat(result.rule()).as("rule of the reported case").isEqualTo(rule);
        assertThat(result.passed()).as("reported case passed").isFalse();
        assertThat(result.verdict()).as("verdict of the reported case").isEqualTo(CaseVerdict.VIOLATED);
        assertThat(result.guarantee()).as("guarantee the case showed").isEqualTo(guarantee);
        assertThat(run.report().guarantee()).as("guarantee claimed").isEqualTo(ConformanceReport.NOT_CLAIMED);
        assertThat(run.report().notClaimedBecause()).as("what keeps the guarantee from being claimed")
                .contains(ran + " (violated: " + rule + " " + guarantee + ")");
        return result;
    }

    /** The one case of the report that ran. */
    private static String caseThatRan(SelectedCase run) {
        Map<String, CaseVerdict> verdicts = run.report().verdicts();
        List<String> ran = verdicts.entrySet().stream().filter(c -> c.getValue() != CaseVerdict.NOT_RUN)
                .map(Map.Entry::getKey).toList();
        assertThat(ran).as("cases that ran, of %s", verdicts.keySet()).hasSize(1);
        return ran.get(0);
    }

    /** The one row, one check, of case {@code name}. */
    private static CaseResult onlyRow(SelectedCase run, String name) {
        List<CaseResult> rows = run.report().rowsOf(name);
        assertThat(rows).as("rows of the case that ran").hasSize(1);
        return rows.get(0);
    }
}
