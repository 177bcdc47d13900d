package dev.onceflow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.JobProcess;
import dev.onceflow.conformance.Verdict;
import dev.onceflow.runtime.fault.FaultPoints;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each named fault point of the runtime and the two-phase commit sink, armed once: the JVM halts
 * exactly there, and the resumed job still commits every record exactly once.
 */
class FaultPointTest {

    private static final long ROWS = 20_000;

    static Stream<String> twoPhaseCommitPoints() {
        // The write-ahead points are not on the path of a two-phase commit sink; recovery has its own test.
        return FaultPoints.ALL.stream()
                .filter(p -> !FaultPoints.WRITE_AHEAD.contains(p) && !p.equals(FaultPoints.SINK_DURING_RECOVERY));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("twoPhaseCommitPoints")
    void required_eo1_crashAtFaultPointLosesAndDuplicatesNothing(String point, @TempDir Path dir) throws Exception {
        Path job = CrashTestJobs.write(dir, ROWS, 10_000, "exactly-once", "100ms");
        Path log = dir.resolve("child.log");

        JobProcess crashed = JobProcess.start(job, "latest", JobProcess.Faults.haltAt(point + "@3"), log);
        assertThat(crashed.await(2)).as("halted at %s; log:\n%s", point, crashed.tail())
                .isEqualTo(FaultPoints.HALT_EXIT_CODE);

        JobProcess resumed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, log);
        assertThat(resumed.await(2)).as("resumed after %s; log:\n%s", point, resumed.tail()).isZero();
        assertExactlyOnce(dir, point);
    }

    /** A crash while committing the restored transactions, then a clean resume. */
    @Test
    void required_eo1_crashDuringRecoveryLosesAndDuplicatesNothing(@TempDir Path dir) throws Exception {
        Path job = CrashTestJobs.write(dir, ROWS, 10_000, "exactly-once", "100ms");
        Path log = dir.resolve("child.log");

        JobProcess first = JobProcess.start(job, "latest", JobProcess.Faults.haltAt(FaultPoints.SINK_AFTER_PRECOMMIT + "@3"), log);
        assertThat(first.await(2)).isEqualTo(FaultPoints.HALT_EXIT_CODE);
        JobProcess recovering = JobProcess.start(job, "latest", JobProcess.Faults.haltAt(FaultPoints.SINK_DURING_RECOVERY), log);
        assertThat(recovering.await(2)).as("halted during recovery; log:\n%s", recovering.tail())
                .isEqualTo(FaultPoints.HALT_EXIT_CODE);
        JobProcess resumed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, log);
        assertThat(resumed.await(2)).as("log:\n%s", resumed.tail()).isZero();
        assertExactlyOnce(dir, FaultPoints.SINK_DURING_RECOVERY);
    }

    private static void assertExactlyOnce(Path dir, String point) throws Exception {
        Verdict verdict = CrashTestJobs.verdict(dir, ROWS);
        assertThat(verdict.exactlyOnce()).as("after a crash at %s: %s", point, verdict.describe()).isTrue();
    }
}
