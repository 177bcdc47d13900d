package dev.onceflow.conformance.filesystem;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.CommittedFiles;
import dev.onceflow.conformance.JobProcess;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.spi.record.Event;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rule 2PC-11 through the CLI: a job directory killed with a pre-committed part file, copied as
 * {@code cp -a jobs/a jobs/b} would, and resumed in the copy with {@code onceflow run job.yaml
 * --resume latest}. The job file names its output and checkpoints relative to the job directory,
 * where the job runs. When it fails: check how the filesystem sink's writer locates the files of a
 * restored handle written with another output directory, and that aborts stay in its own.
 */
@Timeout(300)
class CopiedJobDirectoryCliTest {

    private static final int ROWS = 3_000;

    /**
     * Parallelism 1, so the third commit is checkpoint 3's and one handle is left pre-committed.
     * Throttled to a 4 s run: checkpoint 3 must come well before the last row, also where the first
     * checkpoints take several times their 100 ms interval on a busy machine.
     */
    private static final String JOB = """
            name: copied
            parallelism: 1
            source: {type: datagen, uid: source, options: {rows: %d, keys: 3}}
            steps:
              - {type: throttle, uid: throttle, options: {rows-per-second: 750}}
              - {type: count-by-key, uid: count}
            sink: {type: filesystem, uid: sink, options: {path: out}}
            checkpoints: {interval: 100ms, mode: exactly-once, dir: checkpoints, timeout: 30s, retained: 3}
            """.formatted(ROWS);

    @TempDir
    Path work;

    @Test
    void aCopiedJobDirectoryResumesIntoItsOwnOutputAndLeavesTheOriginalAlone() throws Exception {
        Path original = Files.createDirectories(work.resolve("jobs/a"));
        Path copy = work.resolve("jobs/b");
        Files.writeString(original.resolve("job.yaml"), JOB, StandardCharsets.UTF_8);
        JobProcess killed = JobProcess.start(original.resolve("job.yaml"), "latest",
                JobProcess.Faults.haltAt(FaultPoints.SINK_BEFORE_COMMIT + "@3"), work.resolve("a.log"));
        killed.await(2);
        assertThat(killed.haltedAtFaultPoint()).as("halted before the commit of checkpoint 3; log:%n%s", killed.tail())
                .isTrue();
        assertThat(CommittedFiles.inProgress(original.resolve("out"))).as("a pre-committed part file is left").isNotEmpty();
        Path originalBefore = work.resolve("a-before");
        copyTree(original, originalBefore);

        copyTree(original, copy);
        JobProcess resumed = JobProcess.start(copy.resolve("job.yaml"), "latest", JobProcess.Faults.NONE,
                work.resolve("b.log"));

        assertThat(resumed.await(2)).as("log:%n%s", resumed.tail()).isZero();
        assertThat(Files.readString(work.resolve("b.log"), StandardCharsets.UTF_8))
                .as("the resumed job recovered a pre-committed transaction")
                .contains("recovered and committed the transaction of checkpoint");
        List<Long> ids = CommittedFiles.read(copy.resolve("out")).stream().map(Event::id).map(Long::valueOf)
                .sorted().toList();
        assertThat(ids).as("the copy's output holds every record once")
                .isEqualTo(LongStream.range(0, ROWS).boxed().toList());
        assertThat(CommittedFiles.inProgress(copy.resolve("out"))).isEmpty();
        Process diff = new ProcessBuilder("diff", "-r", originalBefore.toString(), original.toString())
                .redirectErrorStream(true).start();
        String differences = new String(diff.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(diff.waitFor()).as("the original job directory (output, checkpoints) is byte for byte as it was:%n%s",
                differences).isZero();
    }

    /** {@code cp -a from to}, as the user did. */
    private static void copyTree(Path from, Path to) throws IOException, InterruptedException {
        Process cp = new ProcessBuilder("cp", "-a", from.toString(), to.toString()).inheritIO().start();
        assertThat(cp.waitFor()).as("cp -a %s %s", from, to).isZero();
    }
}
