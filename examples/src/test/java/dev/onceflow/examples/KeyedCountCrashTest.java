package dev.onceflow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
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
        long rows = 60_000;
        Path job = CrashTestJobs.write(dir, rows, 6_000, "exactly-once", "100ms");
        Path log = dir.resolve("child.log");
        Random random = new Random(SEED);
        System.out.println("required_eo1_twentyRandomKillsLoseAndDuplicateNothing seed=" + SEED);

        int kills = 0;
        while (kills < 20) {
            ChildJob child = ChildJob.start(job, null, log);
            if (child.exitsWithin(300 + random.nextInt(1_200))) {
                assertThat(child.exitValue()).as("job ended before all kills; log:\n%s", child.tail()).isZero();
                break;
            }
            child.kill();
            kills++;
        }
        System.out.printf("%d kills; %d lines committed before the final run%n", kills,
                CommittedOutput.read(CrashTestJobs.output(dir)).lines);
        ChildJob last = ChildJob.start(job, null, log);
        assertThat(last.await(3, TimeUnit.MINUTES)).as("final run; log:\n%s", last.tail()).isZero();

        CommittedOutput output = CommittedOutput.read(CrashTestJobs.output(dir));
        assertThat(kills).as("kills before the job could finish (seed %d)", SEED).isEqualTo(20);
        assertThat(output.lost(rows)).as("lost ids after %d kills (seed %d)", kills, SEED).isEmpty();
        assertThat(output.duplicated()).as("duplicated ids after %d kills (seed %d)", kills, SEED).isEmpty();
        assertThat(output.wrongCounts(rows, CrashTestJobs.KEYS)).as("per-key running counts (seed %d)", SEED).isEmpty();
        assertThat(output.inProgressFiles).as("files left behind").isEmpty();
    }

    /**
     * The same kind of crash schedule in AT_LEAST_ONCE mode must show duplicates: without
     * alignment, records after a barrier reach the state and the transaction of the checkpoint
     * and are replayed after the restore. Proves the exactly-once test above can fail.
     */
    @Test
    void atLeastOnceModeDuplicatesAfterCrashes(@TempDir Path dir) throws Exception {
        long rows = 1_000_000;
        Path job = CrashTestJobs.write(dir, rows, 100_000, "at-least-once", "100ms");
        Path log = dir.resolve("child.log");
        Random random = new Random(SEED);
        System.out.println("atLeastOnceModeDuplicatesAfterCrashes seed=" + SEED);

        int kills = 0;
        boolean duplicates = false;
        // Kill until duplicates are committed (they need a restore and skew between the channels).
        while (!duplicates && kills < 30) {
            ChildJob child = ChildJob.start(job, null, log);
            if (child.exitsWithin(800 + random.nextInt(1_200))) {
                break;
            }
            child.kill();
            kills++;
            duplicates = !CommittedOutput.read(CrashTestJobs.output(dir)).duplicated().isEmpty();
        }
        ChildJob last = ChildJob.start(job, null, log);
        assertThat(last.await(3, TimeUnit.MINUTES)).as("final run; log:\n%s", last.tail()).isZero();

        CommittedOutput output = CommittedOutput.read(CrashTestJobs.output(dir));
        System.out.printf("at-least-once: %d kills; %s%n", kills, output.summary(rows, CrashTestJobs.KEYS));
        assertThat(output.duplicated()).as("duplicates in AT_LEAST_ONCE mode after %d kills (seed %d)", kills, SEED)
                .isNotEmpty();
        assertThat(output.lost(rows)).as("at-least-once still loses nothing").isEmpty();
    }
}
