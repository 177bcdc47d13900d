package dev.onceflow.checkpoint.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.conformance.CommittedFiles;
import dev.onceflow.conformance.JobProcess;
import dev.onceflow.conformance.JobSpec;
import dev.onceflow.conformance.Verdict;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.checkpoint.CheckpointStorage;
import dev.onceflow.runtime.cli.OnceflowCli;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.testing.hdfs.HdfsExtension;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The CLI's job (datagen -> count-by-key -> filesystem sink) with {@code checkpoints.dir} on a
 * real HDFS, in a child JVM that dies for real (halt at a fault point, SIGKILL), resumed with
 * {@code --resume latest} from the checkpoints on HDFS: each record id is committed exactly once
 * and each key's running count is 1..n.
 */
class HdfsCheckpointRecoveryTest {

    private static final int KEYS = 7;

    @RegisterExtension
    static final HdfsExtension HDFS = new HdfsExtension(1);

    /**
     * Writes {@code dir/job.yaml}: datagen at {@code rowsPerSecond} -> count-by-key -> filesystem
     * sink into local {@code dir/output}, checkpoints every 100 ms to {@code hdfs://…/<test>}.
     */
    private static JobSpec job(Path dir, String test, long rows, long rowsPerSecond) throws IOException {
        Map<String, Object> source = Map.of("rows", rows, "keys", KEYS, "rows-per-second", rowsPerSecond,
                "splits", 4, "payload-size", 0);
        JobSpec spec = JobSpec.of("datagen", source, "filesystem", Map.of("path", dir.resolve("output").toString()), 0, dir)
                .withCheckpointDirectory(CheckpointLocation.of(HDFS.cluster().uri() + "/" + test));
        spec.write(dir.resolve("job.yaml"));
        return spec;
    }

    /** {@code onceflow run dir/job.yaml --resume <resume>} in a child JVM, logging to {@code dir/child.log}. */
    private static JobProcess start(Path dir, String resume, JobProcess.Faults faults) throws IOException {
        return JobProcess.start(dir.resolve("job.yaml"), resume, faults, dir.resolve("child.log"));
    }

    /** What every run of the job in {@code dir} logged. */
    private static String childLog(Path dir) throws IOException {
        return Files.readString(dir.resolve("child.log"), StandardCharsets.UTF_8);
    }

    private static Verdict verdict(Path dir, long rows) throws IOException {
        Path output = dir.resolve("output");
        return Verdict.of(Verdict.datagenInput(rows, KEYS), CommittedFiles.read(output), CommittedFiles.inProgress(output));
    }

    @Test
    void aJobHaltedMidCheckpointResumesFromItsNewestCompleteHdfsCheckpoint(@TempDir Path dir) throws Exception {
        long rows = 20_000;
        JobSpec spec = job(dir, "halted", rows, 5_000);

        JobProcess crashed = start(dir, "latest",
                JobProcess.Faults.haltAt(FaultPoints.COORDINATOR_BEFORE_METADATA + "@3"));
        assertThat(crashed.await(2)).as("log:\n%s", crashed.tail()).isEqualTo(FaultPoints.HALT_EXIT_CODE);

        CheckpointStorage storage = new CheckpointStorage(spec.jobDirectory());
        assertThat(storage.list()).as("checkpoint 3 died before its _metadata")
                .extracting(l -> l.id() + " " + l.status()).containsExactly("1 COMPLETE", "2 COMPLETE", "3 INCOMPLETE");
        assertThat(verdict(dir, rows).committedRecords()).as("committed before the crash").isLessThan(rows);

        JobProcess resumed = start(dir, "latest", JobProcess.Faults.NONE);
        assertThat(resumed.await(2)).as("log:\n%s", resumed.tail()).isZero();

        assertThat(childLog(dir))
                .contains("Restoring job conformance from " + spec.jobDirectory().resolve("chk-2") + " (checkpoint 2)");
        Verdict verdict = verdict(dir, rows);
        assertThat(verdict.exactlyOnce()).as(verdict.describe()).isTrue();
        assertThat(verdict.committedRecords()).isEqualTo(rows);
        assertThat(storage.latestValid().orElseThrow().checkpointId()).as("the final checkpoint of bounded input")
                .isGreaterThan(3);
    }

    /**
     * {@code onceflow savepoint <hdfs job directory> --stop}, with the token the job wrote owner-only
     * beside {@code _control.json} on HDFS, then {@code run --resume <hdfs savepoint>}.
     */
    @Test
    void aStopWithSavepointOnHdfsResumesExactlyOnce(@TempDir Path dir) throws Exception {
        long rows = 20_000;
        JobSpec spec = job(dir, "savepoint", rows, 4_000);
        JobProcess running = start(dir, "latest", JobProcess.Faults.NONE);
        org.apache.hadoop.fs.Path control = new org.apache.hadoop.fs.Path(spec.jobDirectory().resolve("_control.json").uri());
        org.apache.hadoop.fs.Path token = new org.apache.hadoop.fs.Path(spec.jobDirectory().resolve("_control.token").uri());
        await().atMost(Duration.ofMinutes(1)).until(() -> HDFS.cluster().fileSystem().exists(control)
                && !CommittedFiles.read(dir.resolve("output")).isEmpty());
        assertThat(HDFS.cluster().fileSystem().getFileStatus(token).getPermission()).as("the endpoint's token, CFS-7")
                .hasToString("rw-------");

        StringWriter out = new StringWriter();
        int status = new CommandLine(new OnceflowCli()).setOut(new PrintWriter(out)).setErr(new PrintWriter(out))
                .execute("savepoint", spec.jobDirectory().toString(), "--stop");

        assertThat(status).as("savepoint command: %s; job log:\n%s", out, running.tail()).isZero();
        assertThat(running.await(2)).as("stopped with a savepoint; log:\n%s", running.tail()).isZero();
        String printed = out.toString().trim();
        CheckpointLocation savepoint = CheckpointLocation.of(
                printed.substring("Savepoint written to ".length(), printed.indexOf(';')));
        assertThat(savepoint.parent()).isEqualTo(spec.jobDirectory());
        assertThat(savepoint.name()).startsWith("savepoint-");
        assertThat(verdict(dir, rows).committedRecords()).as("stopped mid-run").isLessThan(rows);

        JobProcess resumed = start(dir, savepoint.toString(), JobProcess.Faults.NONE);
        assertThat(resumed.await(2)).as("log:\n%s", resumed.tail()).isZero();

        Verdict verdict = verdict(dir, rows);
        assertThat(verdict.exactlyOnce()).as(verdict.describe()).isTrue();
        assertThat(verdict.committedRecords()).isEqualTo(rows);
        assertThat(HDFS.cluster().fileSystem().exists(control)).as("_control.json removed when the job ends").isFalse();
        assertThat(HDFS.cluster().fileSystem().exists(token)).as("_control.token removed when the job ends").isFalse();
    }

    /** Rule EO-1 with the checkpoints on HDFS: SIGKILLs at random moments lose and duplicate nothing. */
    @Test
    void fiveRandomKillsLoseAndDuplicateNothing(@TempDir Path dir) throws Exception {
        long seed = Long.getLong("onceflow.seed", System.nanoTime());
        System.out.println("fiveRandomKillsLoseAndDuplicateNothing seed=" + seed);
        Random random = new Random(seed);
        // 10 s of input: five runs killed at most 1.5 s after their start cannot reach its end
        // (with 30,000 rows, 5 s, a run of late kills let the job finish after four).
        long rows = 60_000;
        JobSpec spec = job(dir, "killed", rows, 6_000);

        int kills = 0;
        while (kills < 5) {
            JobProcess child = start(dir, "latest", JobProcess.Faults.NONE);
            // From the job's start, whose first checkpoint completes about 0.6 s in: at least one
            // kill must come after a completed checkpoint.
            if (!child.stillRunningAfter(800 + random.nextInt(700))) {
                assertThat(child.await(1)).as("job ended before all kills; log:\n%s", child.tail()).isZero();
                break;
            }
            child.kill();
            kills++;
        }
        JobProcess last = start(dir, "latest", JobProcess.Faults.NONE);
        assertThat(last.await(3)).as("final run; log:\n%s", last.tail()).isZero();

        Verdict verdict = verdict(dir, rows);
        assertThat(kills).as("kills before the job could finish (seed %d)", seed).isEqualTo(5);
        assertThat(verdict.exactlyOnce()).as("after %d kills (seed %d): %s", kills, seed, verdict.describe()).isTrue();
        assertThat(verdict.committedRecords()).isEqualTo(rows);
        assertThat(childLog(dir)).as("a kill after the first checkpoint resumes from HDFS")
                .contains("Restoring job conformance from " + spec.jobDirectory());
    }
}
