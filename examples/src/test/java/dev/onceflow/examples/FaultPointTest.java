package dev.onceflow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.runtime.fault.FaultPoints;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
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
        // The write-ahead point is not on the path of a two-phase commit sink; recovery has its own test.
        return FaultPoints.ALL.stream()
                .filter(p -> !p.equals(FaultPoints.SINK_WAL_AFTER_SEND) && !p.equals(FaultPoints.SINK_DURING_RECOVERY));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("twoPhaseCommitPoints")
    void required_eo1_crashAtFaultPointLosesAndDuplicatesNothing(String point, @TempDir Path dir) throws Exception {
        Path job = CrashTestJobs.write(dir, ROWS, 10_000, "exactly-once", "100ms");
        Path log = dir.resolve("child.log");

        ChildJob crashed = ChildJob.start(job, point + "@3", log);
        assertThat(crashed.await(2, TimeUnit.MINUTES)).as("halted at %s; log:\n%s", point, crashed.tail())
                .isEqualTo(FaultPoints.HALT_EXIT_CODE);

        ChildJob resumed = ChildJob.start(job, null, log);
        assertThat(resumed.await(2, TimeUnit.MINUTES)).as("resumed after %s; log:\n%s", point, resumed.tail()).isZero();
        assertExactlyOnce(dir, point);
    }

    /** A crash while committing the restored transactions, then a clean resume. */
    @Test
    void required_eo1_crashDuringRecoveryLosesAndDuplicatesNothing(@TempDir Path dir) throws Exception {
        Path job = CrashTestJobs.write(dir, ROWS, 10_000, "exactly-once", "100ms");
        Path log = dir.resolve("child.log");

        ChildJob first = ChildJob.start(job, FaultPoints.SINK_AFTER_PRECOMMIT + "@3", log);
        assertThat(first.await(2, TimeUnit.MINUTES)).isEqualTo(FaultPoints.HALT_EXIT_CODE);
        ChildJob recovering = ChildJob.start(job, FaultPoints.SINK_DURING_RECOVERY, log);
        assertThat(recovering.await(2, TimeUnit.MINUTES)).as("halted during recovery; log:\n%s", recovering.tail())
                .isEqualTo(FaultPoints.HALT_EXIT_CODE);
        ChildJob resumed = ChildJob.start(job, null, log);
        assertThat(resumed.await(2, TimeUnit.MINUTES)).as("log:\n%s", resumed.tail()).isZero();
        assertExactlyOnce(dir, FaultPoints.SINK_DURING_RECOVERY);
    }

    private static void assertExactlyOnce(Path dir, String point) throws Exception {
        CommittedOutput output = CommittedOutput.read(CrashTestJobs.output(dir));
        assertThat(output.lost(ROWS)).as("lost ids after a crash at %s", point).isEmpty();
        assertThat(output.duplicated()).as("duplicated ids after a crash at %s", point).isEmpty();
        assertThat(output.wrongCounts(ROWS, CrashTestJobs.KEYS)).as("per-key counts after a crash at %s", point).isEmpty();
        assertThat(output.inProgressFiles).as("files left behind after a crash at %s", point).isEmpty();
    }
}
