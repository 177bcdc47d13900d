package dev.onceflow.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.runtime.checkpoint.CheckpointFileSystem;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.cli.OnceflowCli;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.spi.record.Event;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The cases every connector gets, sink or source: a bounded run, a crash at every fault point, a
 * crash during recovery, the same checkpoint restored twice, an aborted checkpoint followed by
 * completed ones, SIGKILLs at random moments, and a savepoint restored at other parallelisms.
 * Each case checks, per record id, exactly-once in the committed output, the keyed running counts,
 * and that nothing is left behind.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(CaseRecorder.class)
public abstract class ConformanceSuiteBase {

    protected static final int KEYS = 7;

    private final ConformanceSettings settings = ConformanceSettings.fromSystemProperties();
    private final AtomicInteger caseCounter = new AtomicInteger();
    private ConformanceReport report;
    private Path workRoot;

    /** The external system, started before the first case. */
    protected abstract ExternalSystem system();

    /** {@code sink} or {@code source}. */
    protected abstract String kind();

    protected abstract String connectorIdentifier();

    /** The job of a case, reading its input and writing its output into {@code destination}. */
    protected abstract JobSpec jobSpec(TestDestination destination, boolean bounded) throws Exception;

    /** Input record id -> key, for the oracle; writes the input first where the suite owns it. */
    protected abstract Map<String, String> prepareInput(TestDestination destination) throws Exception;

    protected abstract List<Event> committed(TestDestination destination) throws Exception;

    protected abstract List<String> leftovers(TestDestination destination) throws Exception;

    /**
     * The rule a crash case checks: EO-1 for sinks (delivery), SRC-1 for sources (replay from the
     * restored position), so a failure names the contract the connector under test breaks.
     */
    protected abstract Rule replayRule();

    /** The contract of the sink under test, once known; empty for sources. */
    protected Optional<SinkContract> sinkContract() {
        return Optional.empty();
    }

    public ConformanceSettings settings() {
        return settings;
    }

    /**
     * The runtime the job under test runs on: Onceflow's own unless a suite overrides it, e.g.
     * with {@code FlinkTarget.FLINK} from {@code onceflow-conformance-flink} to prove the same
     * connector exactly-once on Apache Flink with the same fixture and crash schedule.
     */
    protected ExecutionTarget target() {
        return ExecutionTarget.ONCEFLOW;
    }

    ConformanceReport report() {
        return report;
    }

    @BeforeAll
    void startExternalSystem() throws Exception {
        String connector = (system().variant().isEmpty() ? connectorIdentifier()
                : connectorIdentifier() + "-" + system().variant()) + target().suffix();
        // Before the fixture starts: if it cannot, the report still lists every case, errored.
        report = new ConformanceReport(connector, kind(), settings);
        try {
            system().start();
        } catch (Exception | Error e) {
            report.fixtureFailed(e);
            throw e;
        }
        workRoot = Path.of("target", "conformance-work", kind() + "-" + connector).toAbsolutePath();
        deleteRecursively(workRoot);
        System.out.printf("Onceflow conformance (%s %s): profile %s, seed %d (replay with -Donceflow.conformance.seed=%d)%n",
                kind(), connector, settings.profile(), settings.seed(), settings.seed());
    }

    /**
     * A case that failed while its job was running leaves the job behind: stop it before the next
     * case starts, so it cannot write into the external system or hold its resources.
     */
    @AfterEach
    void killJobsLeftRunning() throws InterruptedException {
        int killed = JobProcess.killAll();
        if (killed > 0) {
            System.out.printf("Onceflow conformance: killed %d job process(es) the case left running%n", killed);
        }
    }

    @AfterAll
    void writeReportAndStop() throws Exception {
        try {
            if (report != null) {
                report.write(Path.of("target", "conformance"), SuiteCases.declared(this));
            }
        } finally {
            system().close();
        }
    }

    private final Map<String, Map<String, String>> expectedByDestination = new java.util.concurrent.ConcurrentHashMap<>();

    /** Starts a case with a fresh destination and its input. */
    protected ConformanceCase newCase(String name, boolean bounded) throws Exception {
        int n = caseCounter.incrementAndGet();
        String shortName = name.replaceAll("[^A-Za-z0-9]", "_").toLowerCase(java.util.Locale.ROOT);
        String destinationName = ("of" + n + "_" + shortName);
        destinationName = destinationName.substring(0, Math.min(40, destinationName.length()));
        Path work = Files.createDirectories(workRoot.resolve(destinationName));
        TestDestination destination = new TestDestination(destinationName, work);
        expectedByDestination.put(destinationName, new java.util.LinkedHashMap<>(prepareInput(destination)));
        return new ConformanceCase(this, name, destination, jobSpec(destination, bounded));
    }

    /** The input ids and keys of a case; suites may add to it when they write more input. */
    protected Map<String, String> expected(TestDestination destination) {
        return expectedByDestination.get(destination.name());
    }

    Verdict verdict(TestDestination destination) throws Exception {
        return Verdict.of(expectedByDestination.get(destination.name()), committed(destination), leftovers(destination));
    }

    // ------------------------------------------------------------------ cases

    /** EO-3, SRC-4: a bounded job without crashes ends with everything committed. */
    @Test
    void required_eo3_boundedJobCommitsEverything() throws Exception {
        ConformanceCase c = newCase("required_eo3_boundedJobCommitsEverything", true);
        c.finish();
        c.assertExactlyOnce(Rule.EO_3);
    }

    /** EO-1: the JVM halted at each fault point of the protocol, then resumed. */
    @TestFactory
    Stream<DynamicTest> required_eo1_crashAtEveryFaultPoint() {
        return FaultPoints.ALL.stream().filter(p -> !p.equals(FaultPoints.SINK_DURING_RECOVERY))
                .map(point -> DynamicTest.dynamicTest(point, () -> {
                    ConformanceCase c = newCase("required_eo1_crashAt " + point, true);
                    c.crashAt(point + "@3");
                    c.finish();
                    c.assertExactlyOnce(replayRule());
                }));
    }

    /** 2PC-5: a crash while the restored transactions are being committed, then a clean resume. */
    @Test
    void required_2pc5_crashDuringRecoveryLosesNothing() throws Exception {
        ConformanceCase c = newCase("required_2pc5_crashDuringRecovery", true);
        c.crashAt(FaultPoints.COORDINATOR_AFTER_COMPLETE_BEFORE_NOTIFY + "@3");
        c.crashAt(FaultPoints.SINK_DURING_RECOVERY);
        c.finish();
        c.assertExactlyOnce(Rule.TWO_PC_5);
    }

    /**
     * 2PC-4: the same checkpoint restored twice (the FLINK-8086 class of bug). The first restore
     * commits its transactions and the process dies before the next checkpoint completes, so the
     * second restore commits the same handles again.
     */
    @Test
    void required_2pc4_sameCheckpointRestoredTwice() throws Exception {
        ConformanceCase c = newCase("required_2pc4_sameCheckpointRestoredTwice", true);
        c.crashAt(FaultPoints.COORDINATOR_AFTER_COMPLETE_BEFORE_NOTIFY + "@3");
        c.crashAt(FaultPoints.COORDINATOR_BEFORE_METADATA + "@1");
        c.finish();
        c.assertExactlyOnce(Rule.TWO_PC_4);
    }

    /**
     * EO-1: a checkpoint aborted by its timeout, later ones completing, then a crash. Only the
     * stalled checkpoint may time out: the timeout leaves the others room for a sink that has more
     * work after an abort (the Kafka sink opens producers for the transactions that now wait), which
     * took longer than 400 ms on the 2-core build machines and failed the job on tolerable failures.
     */
    @Test
    void required_eo1_abortedCheckpointThenLaterOnesComplete() throws Exception {
        ConformanceCase c = newCase("required_eo1_abortedCheckpointThenLaterOnesComplete", true);
        // Its input lasts at least 10 s: the stall alone takes 2.5 s, and checkpoint 4 must follow it.
        c.use(c.spec().withTimeout("1000ms").withRowsPerSecond(atMost(c.spec().rowsPerSecond(), settings.rows() / 10)));
        c.crashAt(FaultPoints.COORDINATOR_AFTER_COMPLETE_BEFORE_NOTIFY + "@4",
                FaultPoints.TASK_AFTER_SNAPSHOT_BEFORE_ACK + "@2=2500");
        assertThat(Files.readString(c.log())).as("a checkpoint was aborted by its timeout")
                .contains(target().checkpointTimedOut());
        c.finish();
        c.assertExactlyOnce(replayRule());
    }

    /**
     * EO-1, EO-2: barrier alignment. One source's barrier of checkpoint 2 is held back for half a
     * second while the other source goes on; then the JVM halts before checkpoint 3 completes, so
     * checkpoint 2 is restored. With alignment (EXACTLY_ONCE) the records after the early barrier
     * were held out of checkpoint 2 and are replayed once; without it (AT_LEAST_ONCE) they are in
     * checkpoint 2's state and transaction and are replayed again: duplicates. The half second is
     * only the chance for records to arrive behind the early barrier: on Onceflow's runtime the
     * case checks that some did, and errors instead of passing if none did (a machine so busy that
     * the other source sent nothing while it waited).
     */
    @Test
    void required_eo1_skewedBarriersAreAligned() throws Exception {
        ConformanceCase c = newCase("required_eo1_skewedBarriersAreAligned", true);
        // Each of the two sources reaches the point once per checkpoint: the 3rd time is checkpoint 2.
        boolean halted = c.crashAt(FaultPoints.COORDINATOR_BEFORE_METADATA + "@3",
                FaultPoints.SOURCE_BEFORE_BARRIER + "@3=500");
        if (halted && target().equals(ExecutionTarget.ONCEFLOW)) {
            c.requireRecordsBehindBarriers(2);
        }
        c.finish();
        c.assertExactlyOnce(replayRule());
    }

    /**
     * Kills in the random-kill case land up to this long after each run's job started: a fresh
     * child JVM completes its first checkpoint about 0.6 s after the job starts here, so about a
     * third of the kills hit restore, recovery and the first checkpoint, the rest later ones.
     */
    static final long RANDOM_KILL_MAX_MILLIS = 2_000;

    /**
     * The throttle for the random-kill case: the case's own rate, lowered so that the runs between
     * the kills, counted at half of {@link #RANDOM_KILL_MAX_MILLIS} each (more than they process,
     * as the first part of a run is start-up), would process at most three quarters of the input:
     * every kill hits a running job and the last run has work left.
     */
    long rateForRandomKills(long caseRate) {
        double secondsOfRuns = settings.randomKills() * RANDOM_KILL_MAX_MILLIS / 2 / 1000.0;
        return atMost(caseRate, (long) (settings.rows() * 0.75 / secondsOfRuns));
    }

    /** {@code caseRate} lowered to {@code limit} (at least 1); a case rate of 0 (no throttle) counts as unlimited. */
    static long atMost(long caseRate, long limit) {
        long bounded = Math.max(1, limit);
        return caseRate > 0 ? Math.min(caseRate, bounded) : bounded;
    }

    /** EO-1, EO-2: SIGKILL at random moments, many times, resuming each time. */
    @Test
    void required_eo1_randomKillsLoseAndDuplicateNothing() throws Exception {
        ConformanceCase c = newCase("required_eo1_randomKills", true);
        c.use(c.spec().withRowsPerSecond(rateForRandomKills(c.spec().rowsPerSecond())));
        c.killRandomly(settings.randomKills(), new Random(settings.seed()), 0, RANDOM_KILL_MAX_MILLIS);
        c.finish();
        c.assertExactlyOnce(replayRule());
    }

    /**
     * The input of the savepoint case lasts at least this long while its two savepoints are taken:
     * each is taken once the run committed something, and a connector whose client starts slowly
     * (1 to 3 s here for Kafka and Elasticsearch) would otherwise let most records through first,
     * so the resumed run ended before its savepoint ("the job is finishing").
     */
    static final long SAVEPOINT_PHASE_SECONDS = 20;

    /** EO-1: a stop-with-savepoint restored at a higher, then a lower parallelism. */
    @Test
    void required_eo1_savepointRestoresAtOtherParallelism() throws Exception {
        ConformanceCase c = newCase("required_eo1_savepointRestoresAtOtherParallelism", true);
        long caseRate = c.spec().rowsPerSecond();
        c.use(c.spec().withRowsPerSecond(atMost(caseRate, settings.rows() / SAVEPOINT_PHASE_SECONDS)));
        CheckpointLocation first = stopWithSavepoint(c);
        c.countCrash("stop-with-savepoint at parallelism 2, resume at 3");
        c.use(c.spec().withParallelism(3));
        JobProcess resumed = c.start(first.toString(), JobProcess.Faults.NONE);
        CheckpointLocation second = savepointWhenRunning(c, resumed);
        c.countCrash("stop-with-savepoint at parallelism 3, resume at 1");
        // The rest at the case's own rate: nothing is waited for any more.
        c.use(c.spec().withParallelism(1).withRowsPerSecond(caseRate));
        c.finish(second.toString());
        c.assertExactlyOnce(replayRule());
    }

    /** Takes a stop-with-savepoint of a fresh run of the case once it committed something. */
    protected CheckpointLocation stopWithSavepoint(ConformanceCase c) throws Exception {
        return savepointWhenRunning(c, c.start("latest", JobProcess.Faults.NONE));
    }

    /**
     * Stops a running job of the case with a savepoint once it committed something; returns the
     * savepoint, wherever the case keeps its checkpoints (local disk or HDFS).
     */
    protected CheckpointLocation savepointWhenRunning(ConformanceCase c, JobProcess job) throws Exception {
        CheckpointLocation control = c.spec().jobDirectory().resolve("_control.json");
        CheckpointFileSystem storage = CheckpointFileSystem.of(control);
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(50))
                .until(() -> !job.exitsWithin(0) && storage.exists(control) && !committed(c.destination()).isEmpty());
        StringWriter out = new StringWriter();
        int status = new picocli.CommandLine(new OnceflowCli()).setOut(new PrintWriter(out)).setErr(new PrintWriter(out))
                .execute("savepoint", c.spec().jobDirectory().toString(), "--stop");
        assertThat(status).as("savepoint command: %s; job log:\n%s", out, job.tail()).isZero();
        assertThat(job.await(2)).as("job stopped with a savepoint; log:\n%s", job.tail()).isZero();
        String printed = out.toString().trim();
        return CheckpointLocation.of(printed.substring("Savepoint written to ".length(), printed.indexOf(';')));
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
