package dev.onceflow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.JobProcess;
import dev.onceflow.conformance.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A savepoint that a build from before rows took of a job file's job (checked in under
 * {@code src/test/resources/golden-job-files/<commit>/} with the output that run committed; see its
 * README) resumes in today's build, which carries rows: the sources go on after the rows the
 * savepoint covers, every key's count goes on from its value in the savepoint, and the output of
 * both runs together holds each id once with every key's counts 1..n. The savepoint was taken in
 * another directory, so its sink handles name paths that do not exist here: the sink finds the
 * files in its own output.
 */
@Timeout(300)
class GoldenJobFileSavepointTest {

    private static final Path GOLDEN = Path.of("src/test/resources/golden-job-files/25ce130");
    private static final long ROWS = 30_000;

    @TempDir
    Path dir;

    @Test
    void aSavepointOfAJobFileFromBeforeRowsResumesExactlyOnce() throws Exception {
        copy(GOLDEN.resolve("output"), dir.resolve("output"));
        Path savepoint = dir.resolve("old-savepoint");
        copy(GOLDEN.resolve("savepoint-27"), savepoint);
        Verdict before = CrashTestJobs.verdict(dir, ROWS);
        assertThat(before.lost()).as("the old run stopped mid-way").isNotEmpty();

        Path job = CrashTestJobs.write(dir, ROWS, 6_000, "exactly-once", "200ms");
        JobProcess resumed = JobProcess.start(job, savepoint.toString(), JobProcess.Faults.NONE, dir.resolve("run.log"));
        assertThat(resumed.await(3)).as("log:\n%s", resumed.tail()).isZero();

        Verdict verdict = CrashTestJobs.verdict(dir, ROWS);
        assertThat(verdict.exactlyOnce()).as(verdict.describe()).isTrue();
        assertThat(Files.readString(dir.resolve("run.log"))).doesNotContain("non-restored");
    }

    private static void copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path file : files.toList()) {
                Files.copy(file, to.resolve(file.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
    }
}
