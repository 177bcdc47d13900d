package dev.onceflow.runtime.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Job files for the CLI tests: a valid one, and the same with one thing changed. */
final class JobFiles {

    private JobFiles() {
    }

    /** A valid job file writing into {@code dir}. */
    static String valid(Path dir) {
        return """
                name: good-job
                parallelism: 2
                source:
                  type: datagen
                  options:
                    rows: 100
                    keys: 3
                steps:
                  - type: count-by-key
                    uid: count
                sink:
                  type: filesystem
                  options:
                    path: %s
                checkpoints:
                  interval: 100ms
                  mode: exactly-once
                  dir: %s
                restart:
                  strategy: fixed-delay
                  attempts: 2
                  delay: 10ms
                """.formatted(dir.resolve("out"), dir.resolve("checkpoints"));
    }

    /** The valid job file with the first occurrence of {@code from} replaced by {@code to}. */
    static String validWith(Path dir, String from, String to) {
        String valid = valid(dir);
        if (!valid.contains(from)) {
            throw new IllegalArgumentException("the valid job file has no '" + from + "'");
        }
        return valid.replaceFirst(java.util.regex.Pattern.quote(from), java.util.regex.Matcher.quoteReplacement(to));
    }

    static Path write(Path dir, String name, String content) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, content);
        return file;
    }
}
