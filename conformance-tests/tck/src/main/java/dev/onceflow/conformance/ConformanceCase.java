package dev.onceflow.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.runtime.checkpoint.CheckpointFileSystem;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.fault.FaultPoints;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;

/**
 * One test case in progress: the job file, the runs with their crashes, and the verdict at the
 * end, recorded in the report whether the case passes or fails.
 */
public final class ConformanceCase {

    private final ConformanceSuiteBase suite;
    private final String name;
    private final TestDestination destination;
    private final List<String> faults = new ArrayList<>();
    private JobSpec spec;
    private Path jobFile;
    private int crashes;
    private long recoveryMillis;
    private boolean notApplicable;

    ConformanceCase(ConformanceSuiteBase suite, String name, TestDestination destination, JobSpec spec) throws IOException {
        this.suite = suite;
        this.name = name;
        this.destination = destination;
        use(spec);
    }

    public TestDestination destination() {
        return destination;
    }

    public JobSpec spec() {
        return spec;
    }

    public Path log() {
        return destination.workDirectory().resolve("job.log");
    }

    /** Replaces the job file, e.g. to resume at another parallelism. */
    public void use(JobSpec newSpec) throws IOException {
        this.spec = newSpec;
        this.jobFile = newSpec.write(destination.workDirectory().resolve("job.yaml"));
    }

    public JobProcess start(String resume, JobProcess.Faults armed) throws IOException {
        return JobProcess.start(suite.target(), jobFile, resume, armed, log());
    }

    /**
     * Starts the job stalling {@code millis} ms at {@code point} when checkpoint {@code checkpoint}
     * reaches it, and returns once the job stalls there: the moment for a fault on the external
     * system's side (a server restarted, a node killed). Fails with the job's log if it ends first.
     */
    public JobProcess startStalledAt(String point, int checkpoint, long millis) throws Exception {
        JobProcess job = start("latest", new JobProcess.Faults(null, point + "@" + checkpoint + "=" + millis));
        String stalling = "fault point " + point + " reached, stalling";
        Awaitility.await("the job stalls at " + point + " of checkpoint " + checkpoint)
                .atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(20))
                .until(() -> Files.readString(log()).contains(stalling) || !job.isAlive());
        assertThat(Files.readString(log())).as("[%s] the job should stall at %s of checkpoint %d; log:%n%s", name,
                point, checkpoint, job.tail()).contains(stalling);
        return job;
    }

    /** A fault on the external system's side, such as a server restart. */
    @FunctionalInterface
    public interface ExternalFault {
        void inject() throws Exception;
    }

    /**
     * EO-1 across a fault on the external system's side, injected while the job stalls at
     * {@code point} of checkpoint {@code checkpoint} (see {@link #startStalledAt}): the job must
     * ride it out or fail over and recover, and the case must end exactly-once.
     *
     * @param what the fault, as the report names it ("database restarted")
     */
    public Verdict assertExactlyOnceAcross(String what, String point, int checkpoint, long stallMillis,
            ExternalFault fault) throws Exception {
        JobProcess job = startStalledAt(point, checkpoint, stallMillis);
        fault.inject();
        int status = job.await(5);
        countCrash(what + " at " + point + "@" + checkpoint + " (job exit " + status + ")");
        finish();
        return assertExactlyOnce(Rule.EO_1);
    }

    /**
     * Runs the job with {@code point} armed and expects the JVM to halt there. If the job ends
     * without reaching it, the point is not on this connector's path: the fault is reported as not
     * reached, and the case is marked not applicable unless an earlier fault of it did halt the job.
     *
     * @return whether the point was reached
     */
    public boolean crashAt(String point) throws Exception {
        return crashAt(point, null);
    }

    public boolean crashAt(String point, String stallAt) throws Exception {
        JobProcess job = start("latest", new JobProcess.Faults(point, stallAt));
        int status = job.await(5);
        if (status == 0) {
            // The job ran to its end without passing the point: a point of another sink contract.
            // Without any crash before it, the whole case does not apply to this connector.
            notApplicable = crashes == 0;
            faults.add(point + " (not reached)");
            return false;
        }
        assertThat(status).as("[%s] the job should halt at fault point %s; log:\n%s", name, point, job.tail())
                .isEqualTo(FaultPoints.HALT_EXIT_CODE);
        faults.add(point + (stallAt == null ? "" : ", stall " + stallAt));
        crashes++;
        return true;
    }

    /**
     * Runs the job once, from the latest checkpoint, with the sink under test behind the suite's
     * {@link CommitFailures} ({@link CommitFailureSinkFactory}), until it ends by itself. A run
     * that fails counts as a crash: the next run recovers from it.
     *
     * @return the job's exit status, or empty if no failure was injected: the sink under test is
     *     not a two-phase commit sink, and unless an earlier fault of the case applied, the case
     *     does not apply to it
     */
    public java.util.OptionalInt runWithCommitFailures(CommitFailures.Mode mode, int attempts) throws Exception {
        JobSpec plain = spec;
        CommitFailures failures = new CommitFailures(plain.sinkType(), mode, attempts);
        long logStart = Files.exists(log()) ? Files.size(log()) : 0;
        int status;
        use(plain.withSinkType(CommitFailureSinkFactory.IDENTIFIER));
        try {
            status = start("latest", JobProcess.Faults.withCommitFailures(failures)).await(5);
        } finally {
            use(plain);
        }
        if (!Files.readString(log()).substring((int) logStart).contains(CommitFailures.INJECTED)) {
            notApplicable = crashes == 0;
            faults.add(failures + " (not reached: no two-phase commit)");
            return java.util.OptionalInt.empty();
        }
        faults.add(failures + " (job exit " + status + ")");
        if (status != 0) {
            crashes++;
        }
        return java.util.OptionalInt.of(status);
    }

    /**
     * The first line of the job's log that names an exception the suite did not inject, for a
     * failure message: what the job failed with, before whatever it logged on its way down.
     */
    public String firstException() throws IOException {
        return Files.readAllLines(log()).stream().filter(line -> !line.contains(CommitFailures.INJECTED))
                .filter(line -> line.matches(".*\\b\\w+(Exception|Error)\\b.*"))
                .findFirst().map(String::strip).orElse("(no exception in the job log)");
    }

    /**
     * Fails the case under {@code rule} with {@code found} and the job's first exception, recorded
     * as a violation of {@code rule}: for a case whose job did what it must not (exited 0, or
     * failed where it should have ridden a fault out), whatever the output shows.
     */
    public AssertionError violation(Rule rule, String found) throws IOException {
        recordCheck(rule, false);
        return new AssertionError("[" + rule.id() + "] " + rule.statement() + "\n  case: " + name + "\n  faults: "
                + String.join(", ", faults) + "\n  found: " + found + "\n  first exception in the job log: "
                + firstException() + "\n  check: " + rule.hint() + "\n  job log: " + log());
    }

    /**
     * Errors the case (it proves nothing, so it neither passes nor names a rule) unless the job's log
     * shows that a task aligned checkpoint {@code checkpoint} with records behind its first
     * barriers, which Onceflow's runtime reports when a stall is armed: a skew case whose stall held
     * nothing back has not tested barrier alignment.
     */
    public void requireRecordsBehindBarriers(long checkpoint) throws IOException {
        Pattern report = Pattern.compile("checkpoint " + checkpoint + " aligned at \\S+ after \\d+ ms: (\\d+) records");
        List<String> alignments = Files.readAllLines(log()).stream().filter(line -> report.matcher(line).find())
                .map(String::strip).toList();
        boolean skewed = alignments.stream().map(report::matcher)
                .anyMatch(m -> m.find() && Long.parseLong(m.group(1)) > 0);
        if (!skewed) {
            throw new AssertionError("[" + name + "] inconclusive: no task aligned checkpoint " + checkpoint
                    + " with records behind its first barriers, so the stall tested no alignment; alignments "
                    + "reported: " + alignments + "\n  job log: " + log());
        }
    }

    /**
     * SIGKILLs the job {@code kills} times (or until it finishes), each a random time between
     * {@code minMillis} and {@code maxMillis} after the job started (not the JVM: see
     * {@link JobProcess#stillRunningAfter}), so restore, recovery and processing are all hit.
     */
    public void killRandomly(int kills, Random random, long minMillis, long maxMillis) throws Exception {
        for (int i = 0; i < kills; i++) {
            JobProcess job = start("latest", JobProcess.Faults.NONE);
            if (!job.stillRunningAfter(minMillis + (long) (random.nextDouble() * (maxMillis - minMillis)))) {
                assertThat(job.await(1)).as("[%s] job ended before kill %d; log:\n%s", name, i + 1, job.tail()).isZero();
                break;
            }
            job.kill();
            crashes++;
        }
        faults.add("SIGKILL x" + crashes);
    }

    /** Runs the job without faults until it ends; it must end successfully. */
    public void finish() throws Exception {
        finish("latest");
    }

    public void finish(String resume) throws Exception {
        long before = highestCompletedCheckpoint();
        // What earlier attempts left behind, told apart from what this run leaves if it is killed.
        List<String> leftBefore = crashes > 0 ? leftoversOrNull() : List.of();
        JobProcess job = start(resume, JobProcess.Faults.NONE);
        Duration timeout = suite.settings().recoveryTimeout();
        if (crashes > 0) {
            // Recovery time: from the restart until the first checkpoint after the restore completed,
            // i.e. until the job has provably restored its state and sinks and moved on.
            try {
                Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(10))
                        .until(() -> highestCompletedCheckpoint() > before || !job.isAlive());
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                job.kill();
                throw unfinished(job, "stalled: completed no checkpoint after its restart",
                        "completed no checkpoint after its restart within " + timeout.toSeconds() + " s and was killed",
                        leftBefore);
            }
            if (highestCompletedCheckpoint() > before) {
                recoveryMillis = Math.max(recoveryMillis, job.elapsedMillis());
            }
        }
        if (!job.exitsWithin(timeout.toMillis())) {
            job.kill();
            throw unfinished(job, "stalled: did not end",
                    "did not end within " + timeout.toSeconds() + " s and was killed", leftBefore);
        }
        if (job.exitValue() != 0) {
            throw unfinished(job, "failed (exit " + job.exitValue() + ")", "failed (exit " + job.exitValue() + ")",
                    leftBefore);
        }
    }

    /**
     * Explains a last run that did not end successfully. The usual culprit is what earlier
     * attempts left behind in the destination and is still there: a transaction that nobody
     * aborted (2PC-7) holds the locks or the fence the replayed records wait for, so the job hangs
     * (until the recovery timeout) or fails (when its checkpoints time out) instead of finishing.
     * Such a case fails under 2PC-7 and is recorded; any other fails with the job's log.
     *
     * @param fault what the report's faults column gets
     * @param what what happened, for the message
     * @param leftBefore the destination's leftovers before the run, {@code null} if they could not be listed
     */
    private AssertionError unfinished(JobProcess job, String fault, String what, List<String> leftBefore) {
        faults.add(fault);
        List<String> after = leftBefore == null || leftBefore.isEmpty() ? List.of() : leftoversOrNull();
        List<String> stillThere = after == null ? List.of() : leftBefore.stream().filter(after::contains).toList();
        String found = "after " + crashes + " crash(es) the job " + what;
        String tail = "\n  log tail:\n" + tailQuietly(job);
        if (stillThere.isEmpty()) {
            String destination = leftBefore == null || after == null
                    ? "; the destination's leftovers could not be listed"
                    : "; nothing that earlier attempts left behind is still there";
            return new AssertionError("[" + name + "] " + found + destination
                    + "\n  check: the job log, for what the job waited on or failed with\n  job log: " + log() + tail);
        }
        recordCheck(Rule.TWO_PC_7, false);
        return new AssertionError("[" + Rule.TWO_PC_7.id() + "] " + Rule.TWO_PC_7.statement() + "\n  case: " + name
                + "\n  faults: " + String.join(", ", faults) + " (seed " + suite.settings().seed() + ")\n  found: "
                + found + "; left behind by earlier attempts and still there: " + stillThere + ". A transaction of "
                + "a crashed attempt that nobody aborted (abortLingering, 2PC-7) or, if the restored checkpoint "
                + "holds it, committed (recoverAndCommit, 2PC-5) keeps the locks the replayed records need."
                + "\n  check: " + Rule.TWO_PC_7.hint() + "\n  job log: " + log() + tail);
    }

    /** The destination's leftovers, or {@code null} if listing them failed (the case fails anyway). */
    private List<String> leftoversOrNull() {
        try {
            return suite.leftovers(destination);
        } catch (Exception e) {
            return null;
        }
    }

    private static String tailQuietly(JobProcess job) {
        try {
            return job.tail();
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    /**
     * The highest id with a {@code _metadata} file, on local disk or wherever the case keeps
     * checkpoints: in the job's directory (Onceflow's runtime) or one level below it (Flink keeps
     * them under the job id).
     */
    private long highestCompletedCheckpoint() throws IOException {
        CheckpointLocation dir = spec.jobDirectory();
        CheckpointFileSystem storage = CheckpointFileSystem.of(dir);
        if (!storage.exists(dir)) {
            return 0;
        }
        long highest = 0;
        for (CheckpointLocation child : storage.listDirectories(dir)) {
            if (child.name().matches("(chk|savepoint)-\\d+")) {
                highest = Math.max(highest, completedId(storage, child));
            } else if (child.name().matches("[0-9a-f]{32}")) {
                for (CheckpointLocation checkpoint : storage.listDirectories(child)) {
                    if (checkpoint.name().matches("chk-\\d+")) {
                        highest = Math.max(highest, completedId(storage, checkpoint));
                    }
                }
            }
        }
        return highest;
    }

    private static long completedId(CheckpointFileSystem storage, CheckpointLocation checkpoint) throws IOException {
        return storage.exists(checkpoint.resolve("_metadata")) ? Long.parseLong(checkpoint.name().replaceAll("\\D", "")) : 0;
    }

    public void countCrash(String what) {
        crashes++;
        faults.add(what);
    }

    /** Judges the committed output. */
    public Verdict verdict() throws Exception {
        return suite.verdict(destination);
    }

    /**
     * Asserts what the sink's contract promises and records the case in the report: exactly-once,
     * or, for an {@link SinkContract#AT_LEAST_ONCE at-least-once sink}, that nothing was lost
     * (ALO-1), with its duplicates counted and its guarantee never more than at-least-once. The
     * failure message names the rule, the faults armed, the ids lost / duplicated / unexpected, and
     * what to check.
     */
    public Verdict assertExactlyOnce(Rule rule) throws Exception {
        Verdict verdict = verdict();
        boolean atLeastOnceSink = contract() == SinkContract.AT_LEAST_ONCE;
        boolean passed = atLeastOnceSink ? verdict.atLeastOnce() && verdict.leftovers().isEmpty() : verdict.exactlyOnce();
        Rule judged = ruleOfTheContract(rule, verdict);
        record(judged, verdict, passed);
        if (!passed) {
            boolean onlyLeftovers = !verdict.leftovers().isEmpty() && verdict.lost().isEmpty()
                    && verdict.duplicated().isEmpty() && verdict.unexpected().isEmpty() && verdict.wrongCounts().isEmpty();
            // Running counts wrong while every id is there once: the state broke, not the delivery.
            boolean onlyCounts = !verdict.wrongCounts().isEmpty() && verdict.lost().isEmpty()
                    && verdict.duplicated().isEmpty() && verdict.unexpected().isEmpty() && verdict.leftovers().isEmpty();
            Rule broken = onlyLeftovers && rule != Rule.TWO_PC_7 ? Rule.EO_4 : onlyCounts && judged == rule ? Rule.EO_2 : judged;
            throw new AssertionError(message(broken, verdict));
        }
        return verdict;
    }

    /**
     * The rule a verdict is judged under: the case's own, unless the sink's contract names a
     * narrower one. An at-least-once sink promises only ALO-1; duplicates from an idempotent sink
     * break IDEM-1, the rule that claims replays overwrite.
     */
    private Rule ruleOfTheContract(Rule rule, Verdict verdict) {
        SinkContract contract = contract();
        if (contract == SinkContract.AT_LEAST_ONCE) {
            return Rule.ALO_1;
        }
        if (contract == SinkContract.IDEMPOTENT && !verdict.duplicated().isEmpty()) {
            return Rule.IDEM_1;
        }
        return rule;
    }

    private SinkContract contract() {
        return suite.sinkContract().orElse(null);
    }

    /** Records a check of {@code rule} that is not about the final output (it passed or it did not). */
    public void recordCheck(Rule rule, boolean passed) {
        recordCheck(rule, passed, passed ? "exactly-once" : "violated");
    }

    /**
     * Records a case that takes away, on purpose, what the connector needs to deliver (the
     * external system expired a pre-committed transaction while the job was down), so the output
     * is incomplete by construction: what it checks is that the resumed job failed instead of
     * reporting success for the lost data (2PC-5). Shown as {@code failed-loudly}, which does not
     * weaken the connector's guarantee, when it did; as {@code violated} when it did not.
     */
    public void recordFailedLoudly(Rule rule, boolean failedLoudly) {
        recordCheck(rule, failedLoudly, failedLoudly ? "failed-loudly" : "violated");
    }

    /**
     * Records that the case does not apply to this connector, and why (the report shows it): a case
     * that cannot apply passes as not applicable, which neither weakens nor withholds the guarantee.
     */
    public void recordNotApplicable(Rule rule, String why) {
        suite.report().add(check(rule, true, "not-applicable").withDetail(why));
    }

    private void recordCheck(Rule rule, boolean passed, String guarantee) {
        suite.report().add(check(rule, passed, guarantee));
    }

    private CaseResult check(Rule rule, boolean passed, String guarantee) {
        return new CaseResult(name, rule.id(), List.copyOf(faults), crashes, 0, 0, 0, 0, 0, 0,
                notApplicable ? "not-applicable" : guarantee, passed);
    }

    /** Records the verdict under {@code rule} without asserting (for cases that expect a violation). */
    public void record(Rule rule, Verdict verdict, boolean passed) {
        // Leftovers break EO-4 whatever the data shows: they block readers or hold resources.
        // An at-least-once sink's output that happens to be exact proves no more than its contract.
        String guarantee = notApplicable ? "not-applicable"
                : verdict.exactlyOnce() && contract() != SinkContract.AT_LEAST_ONCE ? "exactly-once"
                : verdict.atLeastOnce() && verdict.leftovers().isEmpty() ? "at-least-once" : "violated";
        suite.report().add(new CaseResult(name, rule.id(), List.copyOf(faults), crashes, verdict.committedRecords(),
                verdict.lost().size(), verdict.duplicated().size(), verdict.unexpected().size(), verdict.leftovers().size(),
                recoveryMillis, guarantee, passed));
    }

    String message(Rule rule, Verdict verdict) {
        return "[" + rule.id() + "] " + rule.statement() + "\n  case: " + name + "\n  faults: "
                + (faults.isEmpty() ? "none" : String.join(", ", faults)) + " (" + crashes + " crashes, seed "
                + suite.settings().seed() + ")\n  found: " + verdict.describe() + "\n  check: " + rule.hint()
                + "\n  job log: " + log();
    }
}
