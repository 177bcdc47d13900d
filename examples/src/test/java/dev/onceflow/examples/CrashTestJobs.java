package dev.onceflow.examples;

import dev.onceflow.conformance.CommittedFiles;
import dev.onceflow.conformance.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The README's job for the crash tests: datagen (p=2) -> count-by-key (p=2) -> filesystem sink,
 * and the oracle's verdict on its committed output.
 */
final class CrashTestJobs {

    static final int KEYS = 7;

    private CrashTestJobs() {
    }

    /** Writes {@code job.yaml} into {@code dir}; output goes to {@code dir/output}, checkpoints to {@code dir/checkpoints}. */
    static Path write(Path dir, long rows, long rowsPerSecond, String mode, String interval) throws IOException {
        String yaml = """
                name: crash-test
                parallelism: 2
                source:
                  type: datagen
                  options: {rows: %d, keys: %d, rows-per-second: %d, splits: 4, payload-size: 0}
                steps:
                  - {type: count-by-key, uid: count}
                sink:
                  type: filesystem
                  options: {path: '%s'}
                checkpoints:
                  interval: %s
                  mode: %s
                  dir: '%s'
                  retained: 3
                  timeout: 30s
                """.formatted(rows, KEYS, rowsPerSecond, dir.resolve("output"), interval, mode, dir.resolve("checkpoints"));
        Path file = dir.resolve("job.yaml");
        Files.writeString(file, yaml);
        return file;
    }

    /** Each id once, each key's running counts exactly 1..n, no in-progress file left. */
    static Verdict verdict(Path dir, long rows) throws IOException {
        Path output = dir.resolve("output");
        return Verdict.of(Verdict.datagenInput(rows, KEYS), CommittedFiles.read(output), CommittedFiles.inProgress(output));
    }

    static Path jobDirectory(Path dir) {
        return dir.resolve("checkpoints").resolve("crash-test");
    }
}
