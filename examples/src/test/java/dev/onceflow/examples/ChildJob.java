package dev.onceflow.examples;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the onceflow CLI in a child JVM with this test's classpath, so that a crash is a real
 * process death: SIGKILL from the test, or {@code Runtime.halt} at an armed fault point.
 */
final class ChildJob {

    private final Process process;
    private final Path log;

    private ChildJob(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * Starts {@code onceflow run <jobFile> --resume latest}.
     *
     * @param faultPoint armed fault point ({@code name} or {@code name@n}), or {@code null}
     */
    static ChildJob start(Path jobFile, String faultPoint, Path log) throws IOException {
        return start(jobFile, faultPoint, log, "latest");
    }

    /** Starts {@code onceflow run <jobFile> --resume <resume>}. */
    static ChildJob start(Path jobFile, String faultPoint, Path log, String resume) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx512m");
        command.add("-XX:TieredStopAtLevel=1"); // short-lived JVMs: start fast rather than peak fast
        if (faultPoint != null) {
            command.add("-Donceflow.fault=" + faultPoint);
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("dev.onceflow.runtime.cli.OnceflowCli");
        command.add("run");
        command.add(jobFile.toString());
        command.add("--resume");
        command.add(resume);
        command.add("--progress-interval");
        command.add("0");
        ProcessBuilder builder = new ProcessBuilder(command).directory(jobFile.getParent().toFile())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().remove("ONCEFLOW_FAULT");
        return new ChildJob(builder.start(), log);
    }

    /** Waits up to {@code millis} for the process to exit by itself; true if it did. */
    boolean exitsWithin(long millis) throws InterruptedException {
        return process.waitFor(millis, TimeUnit.MILLISECONDS);
    }

    int exitValue() {
        return process.exitValue();
    }

    /** Sends SIGKILL and waits for the process to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the process to exit and returns its exit status. */
    int await(long timeout, TimeUnit unit) throws InterruptedException, IOException {
        if (!process.waitFor(timeout, unit)) {
            process.destroyForcibly();
            throw new AssertionError("the job did not finish within " + timeout + " " + unit + "; log:\n" + tail());
        }
        return process.exitValue();
    }

    /** The last lines of the child's output, for assertion messages. */
    String tail() throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }
}
