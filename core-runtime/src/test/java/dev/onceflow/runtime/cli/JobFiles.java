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

    /** A job's exit status, and what it wrote to stdout and stderr. */
    record Run(int status, String out, String err) {
    }

    /** Runs the job file {@code file} in-process with the command line, without progress lines. */
    static Run run(Path file) {
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        picocli.CommandLine cli = OnceflowCli.commandLine();
        cli.setOut(new java.io.PrintWriter(out, true));
        cli.setErr(new java.io.PrintWriter(err, true));
        int status = cli.execute("run", file.toString(), "--progress-interval", "0");
        return new Run(status, out.toString(), err.toString());
    }

    static Path write(Path dir, String name, String content) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, content);
        return file;
    }
}
