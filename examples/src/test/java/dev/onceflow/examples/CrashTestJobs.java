package dev.onceflow.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Job files for the crash tests: datagen (p=2) -> count-by-key (p=2) -> filesystem sink. */
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

    static Path output(Path dir) {
        return dir.resolve("output");
    }

    static Path jobDirectory(Path dir) {
        return dir.resolve("checkpoints").resolve("crash-test");
    }
}
