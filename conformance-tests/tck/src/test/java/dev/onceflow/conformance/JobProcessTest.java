package dev.onceflow.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The job processes a case starts are stopped when the case ends, whatever state it ended in. */
class JobProcessTest {

    @Test
    void killAllStopsEveryJobStillRunningAndForgetsThoseThatEnded(@TempDir Path work) throws Exception {
        // Effectively endless: a million rows at 100 per second.
        JobSpec spec = JobSpec.of("datagen", Map.of("rows", 1_000_000, "keys", 3), "filesystem",
                Map.of("path", work.resolve("out").toString()), 100, work);
        Path jobFile = spec.write(work.resolve("job.yaml"));
        Path log = work.resolve("job.log");
        JobProcess first = JobProcess.start(jobFile, "latest", JobProcess.Faults.NONE, log);
        JobProcess second = JobProcess.start(jobFile, "latest", JobProcess.Faults.NONE, log);
        second.kill(); // ended before the case did: nothing left to kill

        assertThat(first.isAlive()).as("log:%n%s", Files.exists(log) ? first.tail() : "").isTrue();
        assertThat(JobProcess.killAll()).isEqualTo(1);
        assertThat(first.isAlive()).isFalse();
        assertThat(JobProcess.killAll()).isZero();
    }
}
