package dev.onceflow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.JobProcess;
import dev.onceflow.conformance.Verdict;
import dev.onceflow.runtime.fault.FaultPoints;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job of the README, killed with SIGKILL at random moments and resumed with
 * {@code --resume latest} each time. Seeds are printed; set {@code -Donceflow.seed=N} to replay.
 */
class KeyedCountCrashTest {

    private static final long SEED = Long.getLong("onceflow.seed", System.nanoTime());

    /** Rule EO-1/EO-2: in EXACTLY_ONCE mode, no crash loses or duplicates a record or a count. */
    @Test
    void required_eo1_twentyRandomKillsLoseAndDuplicateNothing(@TempDir Path dir) throws Exception {
        long rows = 100_000; // 20 runs of up to 1.2 s at 6,000 rows/s process at most 72,000
        Path job = CrashTestJobs.write(dir, rows, 6_000, "exactly-once", "100ms");
        Path log = dir.resolve("child.log");
        Random random = new Random(SEED);
        System.out.println("required_eo1_twentyRandomKillsLoseAndDuplicateNothing seed=" + SEED);

        int kills = 0;
        while (kills < 20) {
            JobProcess child = JobProcess.start(job, "latest", JobProcess.Faults.NONE, log);
            // From the job's start; its first checkpoint completes about 0.6 s in, so about half the
            // kills hit restore and the first checkpoint, half a job committing.
            if (!child.stillRunningAfter(random.nextInt(1_200))) {
                assertThat(child.await(1)).as("job ended before all kills; log:\n%s", child.tail()).isZero();
                break;
            }
            child.kill();
            kills++;
        }
        System.out.printf("%d kills; %d records committed before the final run%n", kills,
                CrashTestJobs.verdict(dir, rows).committedRecords());
        JobProcess last = JobProcess.start(job, "latest", JobProcess.Faults.NONE, log);
        assertThat(last.await(3)).as("final run; log:\n%s", last.tail()).isZero();

        Verdict verdict = CrashTestJobs.verdict(dir, rows);
        assertThat(kills).as("kills before the job could finish (seed %d)", SEED).isEqualTo(20);
        assertThat(verdict.exactlyOnce()).as("after %d kills (seed %d): %s", kills, SEED, verdict.describe()).isTrue();
    }

    /**
     * In AT_LEAST_ONCE mode crashes do duplicate, which proves the test above can fail: one source's
     * barrier of checkpoint 2 is held back for half a second while the other source goes on, then
     * the JVM halts before checkpoint 3 completes. Without alignment the records after the early
     * barrier are in checkpoint 2's state and committed transaction, and the restore replays them.
     * The same schedule in EXACTLY_ONCE mode is the conformance case
     * {@code required_eo1_skewedBarriersAreAligned}.
     */
    @Test
    void atLeastOnceModeDuplicatesAfterACrash(@TempDir Path dir) throws Exception {
        long rows = 20_000;
        Path job = CrashTestJobs.write(dir, rows, 10_000, "at-least-once", "100ms");
        Path log = dir.resolve("child.log");

        JobProcess crashed = JobProcess.start(job, "latest", new JobProcess.Faults(
                FaultPoints.COORDINATOR_BEFORE_METADATA + "@3", FaultPoints.SOURCE_BEFORE_BARRIER + "@3=500"), log);
        assertThat(crashed.await(2)).as("log:\n%s", crashed.tail()).isEqualTo(FaultPoints.HALT_EXIT_CODE);
        JobProcess resumed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, log);
        assertThat(resumed.await(2)).as("log:\n%s", resumed.tail()).isZero();

        Verdict verdict = CrashTestJobs.verdict(dir, rows);
        System.out.println("at-least-once: " + verdict.describe());
        assertThat(verdict.duplicated()).as("duplicates in AT_LEAST_ONCE mode: %s", verdict.describe()).isNotEmpty();
        assertThat(verdict.lost()).as("at-least-once still loses nothing").isEmpty();
    }
}
