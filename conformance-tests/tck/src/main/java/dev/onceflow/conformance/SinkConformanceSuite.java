package dev.onceflow.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.spi.record.Event;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite for a sink. A connector author extends it with one method:
 *
 * <pre>{@code
 * class MySinkConformanceTest extends SinkConformanceSuite {
 *     @Override
 *     protected SinkExternalSystem externalSystem() {
 *         return new MyFixture(); // starts the system, configures the sink, reads committed data
 *     }
 * }
 * }</pre>
 *
 * <p>The job under test is datagen (ids {@code 0..rows-1}) -> throttle -> count-by-key -> the sink,
 * run in child JVMs that the suite crashes.
 */
public abstract class SinkConformanceSuite extends ConformanceSuiteBase {

    private SinkExternalSystem system;
    private SinkContract contract;

    /** The fixture of the sink under test. Called once per test class. */
    protected abstract SinkExternalSystem externalSystem();

    @Override
    protected final SinkExternalSystem system() {
        if (system == null) {
            system = externalSystem();
        }
        return system;
    }

    @Override
    protected final String kind() {
        return "sink";
    }

    @Override
    protected final Rule replayRule() {
        return Rule.EO_1;
    }

    @Override
    protected final String connectorIdentifier() {
        return system().sinkIdentifier();
    }

    /**
     * The contract of the sink under test, read from the sink its factory builds for the first
     * case's options; known once a case has started.
     */
    @Override
    protected final Optional<SinkContract> sinkContract() {
        return Optional.ofNullable(contract);
    }

    @Override
    protected JobSpec jobSpec(TestDestination destination, boolean bounded) throws Exception {
        Map<String, Object> sinkOptions = system().sinkOptions(destination);
        if (contract == null) {
            contract = SinkContract.of(system().sinkIdentifier(), sinkOptions);
        }
        // BE-1: a sink that promises nothing gives no case anything to check; no guarantee is claimed.
        Assumptions.assumeFalse(contract == SinkContract.BEST_EFFORT, "sink '" + system().sinkIdentifier()
                + "' is a BestEffortSink: it promises nothing on a crash, so the suite checks nothing");
        Map<String, Object> source = new LinkedHashMap<>();
        source.put("rows", settings().rows());
        source.put("keys", KEYS);
        source.put("splits", 4);
        source.put("payload-size", 8);
        JobSpec spec = JobSpec.of("datagen", source, system().sinkIdentifier(), sinkOptions,
                settings().rowsPerSecond(), destination.workDirectory()).withMode(settings().mode());
        return system().sinkFormat().map(spec::withSinkFormat).orElse(spec);
    }

    @Override
    protected Map<String, String> prepareInput(TestDestination destination) {
        return Verdict.datagenInput(settings().rows(), KEYS);
    }

    @Override
    protected List<Event> committed(TestDestination destination) throws Exception {
        return system().readCommitted(destination);
    }

    @Override
    protected List<String> leftovers(TestDestination destination) throws Exception {
        return system().leftovers(destination);
    }

    /**
     * 2PC-1: the JVM halts right after the first pre-commit, before any checkpoint completed, so
     * a committed reader must see nothing at all.
     */
    @Test
    void required_2pc1_nothingVisibleBeforeTheCheckpointCompletes() throws Exception {
        ConformanceCase c = newCase("required_2pc1_nothingVisibleBeforeTheCheckpointCompletes", true);
        if (!c.crashAt(FaultPoints.SINK_AFTER_PRECOMMIT + "@1")) {
            c.recordCheck(Rule.TWO_PC_1, true); // not a two-phase commit sink
            return;
        }
        List<Event> visible = committed(c.destination());
        c.recordCheck(Rule.TWO_PC_1, visible.isEmpty());
        if (!visible.isEmpty()) {
            throw new AssertionError(c.message(Rule.TWO_PC_1, c.verdict()) + "\n  visible before any checkpoint completed: "
                    + visible.size() + " records, first " + visible.get(0));
        }
        c.finish();
        c.assertExactlyOnce(Rule.EO_1);
    }

    /**
     * 2PC-7: the JVM stalls, then halts, after the sinks pre-committed checkpoint n and began (and
     * wrote into) the transaction for n+1, before n completes. Restoring n-1 knows n's transaction
     * but not n+1's: only abortLingering can clean that one up.
     */
    @Test
    void required_2pc7_lingeringTransactionsAreAborted() throws Exception {
        ConformanceCase c = newCase("required_2pc7_lingeringTransactionsAreAborted", true);
        c.crashAt(FaultPoints.COORDINATOR_BEFORE_METADATA + "@3", FaultPoints.COORDINATOR_BEFORE_METADATA + "@3=300");
        c.finish();
        c.assertExactlyOnce(Rule.TWO_PC_7);
    }

    /** Attempts of a handle that fail in the transient 2PC-3 cases: fewer than the runtime's default commit attempts (5). */
    static final int TRANSIENT_COMMIT_FAILURES = 2;

    /**
     * 2PC-3: the first commits of the first handles throw before they took effect, while the job
     * runs on. The runtime must retry each handle until it commits: the run ends successfully and
     * every record is there once. A commit that reports success for a transaction it did not
     * commit, or a runtime that gives up on a handle after a failed attempt, loses its records.
     */
    @Test
    void required_2pc3_commitFailingBeforeItTookEffectIsRetried() throws Exception {
        transientCommitFailures("required_2pc3_commitFailingBeforeItTookEffectIsRetried", CommitFailures.Mode.BEFORE);
    }

    /**
     * 2PC-3, 2PC-4: the first commits of the first handles throw after they took effect (the
     * external system committed; the answer was lost). The retry must find the handle committed and
     * succeed without effect: the run ends successfully with every record once. Duplicates, or a
     * job that fails on the retry, break 2PC-4; lost records break 2PC-3.
     */
    @Test
    void required_2pc3_commitFailingAfterItTookEffectIsRetried() throws Exception {
        transientCommitFailures("required_2pc3_commitFailingAfterItTookEffectIsRetried", CommitFailures.Mode.AFTER);
    }

    private void transientCommitFailures(String name, CommitFailures.Mode mode) throws Exception {
        ConformanceCase c = newCase(name, true);
        java.util.OptionalInt status = c.runWithCommitFailures(mode, TRANSIENT_COMMIT_FAILURES);
        if (status.isEmpty()) {
            c.recordNotApplicable(Rule.TWO_PC_3, "not a two-phase commit sink: it has no commit to fail");
            return;
        }
        // A retried commit that fails although the first attempt took effect is not idempotent.
        Rule retried = mode == CommitFailures.Mode.AFTER ? Rule.TWO_PC_4 : Rule.TWO_PC_3;
        if (status.getAsInt() != 0 && target().equals(ExecutionTarget.ONCEFLOW)) {
            throw c.violation(retried, "the job failed (exit " + status.getAsInt() + ") on " + TRANSIENT_COMMIT_FAILURES
                    + " failed attempts per handle, fewer than the runtime retries: the retried commit failed too");
        }
        if (status.getAsInt() != 0) {
            // Flink's committer fails the job on a commit's exception instead of retrying it in the
            // job, which 2PC-3 allows; the handle must then commit on the resume, not be dropped.
            c.finish();
        }
        Verdict verdict = c.verdict();
        boolean onlyDuplicates = !verdict.duplicated().isEmpty() && verdict.lost().isEmpty();
        c.assertExactlyOnce(onlyDuplicates ? Rule.TWO_PC_4 : Rule.TWO_PC_3);
    }

    /**
     * 2PC-3: every commit and recoverAndCommit throws. The job cannot deliver and must say so: it
     * must fail (exit non-zero), never end successfully with its records not committed. Resumed
     * without the failures, it must then commit every handle that failed: none was dropped.
     */
    @Test
    void required_2pc3_permanentCommitFailureFailsTheJob() throws Exception {
        ConformanceCase c = newCase("required_2pc3_permanentCommitFailureFailsTheJob", true);
        java.util.OptionalInt status = c.runWithCommitFailures(CommitFailures.Mode.PERMANENT, 1);
        if (status.isEmpty()) {
            c.recordNotApplicable(Rule.TWO_PC_3, "not a two-phase commit sink: it has no commit to fail");
            return;
        }
        if (status.getAsInt() == 0) {
            throw c.violation(Rule.TWO_PC_3, "the job exited 0 although every commit failed: "
                    + c.verdict().describe());
        }
        c.finish();
        c.assertExactlyOnce(Rule.TWO_PC_3);
    }

    /**
     * 2PC-7 across a scale-down: the JVM halts at parallelism 3 while the transactions of a
     * checkpoint that never completes are open (as in {@link
     * #required_2pc7_lingeringTransactionsAreAborted}), and the job resumes at parallelism 1. The
     * subtasks 1 and 2 are gone: their lingering transactions are the one remaining writer's to
     * abort ({@code SinkContext.ownsFormerSubtask}), or they stay behind.
     */
    @Test
    void required_2pc7_crashAtParallelism3ResumeAt1AbortsFormerSubtasks() throws Exception {
        ConformanceCase c = newCase("required_2pc7_crashAtParallelism3ResumeAt1AbortsFormerSubtasks", true);
        c.use(c.spec().withParallelism(3));
        // Checkpoint 6, not 3: at three subtasks the first checkpoints come while the job still starts
        // up, and no records reached the transactions of the next checkpoint during the stall.
        c.crashAt(FaultPoints.COORDINATOR_BEFORE_METADATA + "@6", FaultPoints.COORDINATOR_BEFORE_METADATA + "@6=500");
        c.use(c.spec().withParallelism(1));
        c.finish();
        c.assertExactlyOnce(Rule.TWO_PC_7);
    }

    /**
     * EO-1 across a scale-up: the JVM halts at parallelism 1 after checkpoint 3 completed and
     * before its commit, then the job resumes at parallelism 3. The restored handles, open
     * transaction, keyed counts and source positions of one subtask are spread over three.
     */
    @Test
    void required_eo1_crashAtParallelism1ResumeAt3() throws Exception {
        ConformanceCase c = newCase("required_eo1_crashAtParallelism1ResumeAt3", true);
        c.use(c.spec().withParallelism(1));
        c.crashAt(FaultPoints.COORDINATOR_AFTER_COMPLETE_BEFORE_NOTIFY + "@3");
        c.use(c.spec().withParallelism(3));
        c.finish();
        c.assertExactlyOnce(replayRule());
    }

    /**
     * EO-6: the job runs, then the user starts it afresh against the same destination after
     * deleting its checkpoints (a new checkpoint directory: checkpoint ids, and the transaction ids,
     * markers and names derived from them, start again at 1), with the same job name and sink uid,
     * on ids {@code rows..2*rows-1}. Every id of the second run must be there once, and the first
     * run's committed output exactly as it was: a sink that takes the first run's commit marker for
     * its own skips the second run's records, one that reuses its names overwrites the first run's
     * output.
     *
     * <p>The first run dies between the pre-commit and the commit of its third checkpoint where the
     * sink has that step (two-phase commit), so its pre-committed transaction is left behind when
     * its checkpoints are thrown away: the fresh start must abort it (2PC-7) and leave nothing
     * behind. A sink without the step runs the first run to its end. Where the first run left
     * something behind, its committed output cannot always be read whole before the fresh start
     * (see below), so the case then checks that none of it was lost or repeated, not that nothing
     * was added.
     */
    @Test
    void required_eo6_freshStartAgainstUsedDestination() throws Exception {
        ConformanceCase c = newCase("required_eo6_freshStartAgainstUsedDestination", true);
        JobProcess first = c.start("latest", JobProcess.Faults.haltAt(FaultPoints.SINK_BEFORE_COMMIT + "@3"));
        int status = first.await(5);
        if (status == FaultPoints.HALT_EXIT_CODE) {
            c.countCrash(FaultPoints.SINK_BEFORE_COMMIT + "@3, checkpoints then deleted");
        } else {
            assertThat(status).as("[%s] the first run should end or halt at %s; log:\n%s",
                    "required_eo6_freshStartAgainstUsedDestination", FaultPoints.SINK_BEFORE_COMMIT, first.tail())
                    .isZero();
        }
        Map<String, Long> firstRun = idCounts(committed(c.destination()));
        // Run 1's committed output reads whole only when nothing of it lingers: a transaction left
        // open hides the committed records after it from committed readers (Kafka's last stable
        // offset) until the fresh start aborts it. Then run 1's output may grow by what was hidden,
        // but never lose an id or repeat one.
        boolean firstRunReadWhole = leftovers(c.destination()).isEmpty();
        long rows = settings().rows();
        c.use(c.spec().withSourceOption("first-id", rows).withCheckpointDirectory(c.spec().checkpointDirectory()
                .resolve("after-the-checkpoints-were-deleted")));
        c.finish();
        Map<String, String> secondInput = new LinkedHashMap<>();
        for (long id = rows; id < 2 * rows; id++) {
            secondInput.put(Long.toString(id), "key-" + (id % KEYS));
        }
        Map<String, Long> all = idCounts(committed(c.destination()));
        java.util.SortedSet<String> lost = new java.util.TreeSet<>(), doubled = new java.util.TreeSet<>();
        secondInput.keySet().forEach(id -> {
            long n = all.getOrDefault(id, 0L);
            if (n == 0) {
                lost.add(id);
            } else if (n > 1 && contract != SinkContract.AT_LEAST_ONCE) {
                doubled.add(id);
            }
        });
        Map<String, Long> firstRunNow = new java.util.TreeMap<>(all);
        firstRunNow.keySet().removeAll(secondInput.keySet());
        boolean firstRunKept = firstRunReadWhole ? firstRunNow.equals(new java.util.TreeMap<>(firstRun))
                : firstRun.entrySet().stream().allMatch(e -> e.getValue().equals(firstRunNow.get(e.getKey())))
                        && firstRunNow.entrySet().stream().allMatch(e -> firstRun.containsKey(e.getKey())
                                || e.getValue() == 1 || contract == SinkContract.AT_LEAST_ONCE);
        boolean passed = lost.isEmpty() && doubled.isEmpty() && firstRunKept;
        List<String> leftBehind = passed ? leftovers(c.destination()) : List.of();
        if (!leftBehind.isEmpty()) {
            c.recordCheck(Rule.TWO_PC_7, false);
            throw new AssertionError("[" + Rule.TWO_PC_7.id() + "] " + Rule.TWO_PC_7.statement()
                    + "\n  case: required_eo6_freshStartAgainstUsedDestination (run 1 halted at "
                    + FaultPoints.SINK_BEFORE_COMMIT + "@3, its checkpoints deleted, then a fresh start)"
                    + "\n  found: every record delivered, but left behind after the fresh start: " + leftBehind
                    + "\n  check: " + Rule.TWO_PC_7.hint() + "\n  job log: " + c.log());
        }
        c.recordCheck(Rule.EO_6, passed);
        if (!passed) {
            throw new AssertionError("[" + Rule.EO_6.id() + "] " + Rule.EO_6.statement()
                    + "\n  case: required_eo6_freshStartAgainstUsedDestination (run 1: ids 0.." + (rows - 1)
                    + (status == 0 ? "" : ", halted at " + FaultPoints.SINK_BEFORE_COMMIT + "@3")
                    + ", then a fresh start without checkpoints: ids " + rows + ".." + (2 * rows - 1) + ")"
                    + "\n  found: second run lost " + lost.size() + " " + first(lost) + ", duplicated " + doubled.size()
                    + " " + first(doubled) + "; first run's output " + (firstRunKept ? "unchanged" : "changed: "
                    + firstRun.size() + " ids before, " + firstRunNow.size() + " after")
                    + "\n  check: " + Rule.EO_6.hint() + "\n  job log: " + c.log());
        }
    }

    private static Map<String, Long> idCounts(List<Event> events) {
        Map<String, Long> counts = new java.util.TreeMap<>();
        events.forEach(e -> counts.merge(e.id(), 1L, Long::sum));
        return counts;
    }

    private static String first(java.util.SortedSet<String> ids) {
        return ids.isEmpty() ? "" : ids.stream().limit(10).toList() + (ids.size() > 10 ? "..." : "");
    }
}
