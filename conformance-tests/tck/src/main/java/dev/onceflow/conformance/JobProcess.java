package dev.onceflow.conformance;

import dev.onceflow.runtime.fault.FaultPoints;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The job under test in a child JVM (the onceflow CLI with the test's classpath, so the connector
 * under test is on it), so that every crash is a real process death: SIGKILL from the suite, or
 * {@code Runtime.halt} at an armed fault point. The child JVMs share an archive of the classes
 * they load, to start faster ({@link ClassDataSharing}).
 *
 * <p>Each child gets a temp directory of its own ({@code java.io.tmpdir}), deleted once it has
 * exited: a killed JVM deletes nothing it put there, and the suite kills many. Flink's
 * MiniCluster alone leaves a 24 MB copy of its RPC jar and some directories per start, which came
 * to about 2 GB in {@code /tmp} per CI run of the suite on Flink. When the suite's JVM exits, a
 * hook kills the jobs still running and deletes the last directories before the JVM is gone (it
 * waits up to 15 s). A test JVM that is itself killed runs no hook: every JVM that loads this class
 * looks for what such a JVM left, on a background thread ({@link JobTempDirectories}).
 */
public final class JobProcess {

    private final Process process;
    private final List<String> command;
    /** The child's {@code java.io.tmpdir}. */
    private final Path tempDirectory;
    /**
     * Every job started whose exit handler has not yet deleted its temp directory. Those still
     * running are killed at the end of a case ({@link #killAll}), so that a case failing half-way
     * (an assertion while its job still runs) does not leave that job running into the next case,
     * retrying against a system the suite has moved on from; and when this JVM exits.
     */
    private static final java.util.Set<JobProcess> UNCLEANED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Set once this JVM exits: a job started from then on is killed at once. */
    private static volatile boolean exiting;
    /** How long the exit hook waits for every job's cleanup, well within Surefire's 30 s for a fork to exit. */
    private static final java.time.Duration CLEANUP_AT_EXIT = java.time.Duration.ofSeconds(15);

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            exiting = true;
            killAndAwaitCleanup(CLEANUP_AT_EXIT);
        }, "onceflow-job-process-cleanup"));
        // Off the first case's path: a killed suite may have left gigabytes.
        Thread sweep = new Thread(() -> JobTempDirectories.deleteAbandoned(JobTempDirectories.defaultRoot(),
                java.time.Instant.now().minus(JobTempDirectories.ABANDONED_AFTER)), "onceflow-job-tmp-sweep");
        sweep.setDaemon(true);
        sweep.start();
    }

    private final Path log;
    /** Where this process's output starts in {@link #log}, which every run of a case appends to. */
    private final long logStart;
    private final long startNanos = System.nanoTime();
    /** Completes once the child has exited and its temp directory is deleted. */
    private final java.util.concurrent.CompletableFuture<Void> cleanedUp;

    private JobProcess(Process process, List<String> command, Path tempDirectory, Path log, long logStart) {
        this.process = process;
        this.command = List.copyOf(command);
        this.tempDirectory = tempDirectory;
        this.log = log;
        this.logStart = logStart;
        this.cleanedUp = process.onExit().thenRun(() -> JobTempDirectories.delete(tempDirectory));
        UNCLEANED.add(this);
        // Runs at once if the child has already exited and been cleaned up.
        cleanedUp.whenComplete((ignored, failure) -> {
            UNCLEANED.remove(this);
        });
        if (exiting) {
            process.destroyForcibly();
        }
    }

    /**
     * What the exit hook does: kills the children still running (they would go on against servers
     * the suite is shutting down) and waits, up to {@code timeout} in all, until their temp
     * directories are deleted. Exit handlers run on daemon threads, which the JVM would otherwise
     * stop half-way through the last child's. Jobs started meanwhile are killed too.
     */
    static void killAndAwaitCleanup(java.time.Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!UNCLEANED.isEmpty() && System.nanoTime() - deadline < 0) {
            List<JobProcess> jobs = List.copyOf(UNCLEANED);
            for (JobProcess job : jobs) {
                job.process.destroyForcibly();
            }
            for (JobProcess job : jobs) {
                try {
                    job.cleanedUp.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (java.util.concurrent.ExecutionException e) {
                    System.err.println("onceflow conformance: the temp directory " + job.tempDirectory
                            + " of a job process may be left behind: " + e.getCause());
                } catch (java.util.concurrent.TimeoutException e) {
                    for (JobProcess left : UNCLEANED) {
                        System.err.println("onceflow conformance: gave up waiting for a job process to end and its "
                                + "temp directory " + left.tempDirectory + " to be deleted");
                    }
                    return;
                }
                UNCLEANED.remove(job);
            }
        }
    }

    /** The child's {@code java.io.tmpdir}, deleted once the child has exited. */
    Path tempDirectory() {
        return tempDirectory;
    }

    /**
     * The command the child was started with. (The JDK's {@code ProcessHandle.Info.arguments()}
     * is empty on Linux once the command line is longer than the one page it reads, as the class
     * path makes it.)
     */
    List<String> command() {
        return command;
    }

    /** SIGKILLs every job still running and waits until they are gone; returns how many there were. */
    static int killAll() throws InterruptedException {
        int killed = 0;
        for (JobProcess job : List.copyOf(UNCLEANED)) {
            if (job.process.isAlive()) {
                job.process.destroyForcibly();
                job.process.waitFor();
                killed++;
            }
        }
        return killed;
    }

    /** What to arm in the child. */
    public record Faults(String haltAt, String delayAt, CommitFailures commitFailures) {
        public static final Faults NONE = new Faults(null, null);

        public Faults(String haltAt, String delayAt) {
            this(haltAt, delayAt, null);
        }

        public static Faults haltAt(String point) {
            return new Faults(point, null);
        }

        /** Commit failures injected into the sink under test; the job file must name {@link CommitFailureSinkFactory}. */
        public static Faults withCommitFailures(CommitFailures failures) {
            return new Faults(null, null, failures);
        }

        boolean none() {
            return haltAt == null && delayAt == null && commitFailures == null;
        }

        @Override
        public String toString() {
            return none() ? "none"
                    : ((haltAt == null ? "" : "halt at " + haltAt) + (delayAt == null ? "" : " stall at " + delayAt)
                            + (commitFailures == null ? "" : " " + commitFailures)).trim();
        }
    }

    /** Starts {@code onceflow run <jobFile> --resume <resume>} ({@code latest} or a directory) on Onceflow's runtime. */
    public static JobProcess start(Path jobFile, String resume, Faults faults, Path log) throws IOException {
        return start(ExecutionTarget.ONCEFLOW, jobFile, resume, faults, log);
    }

    /** Starts the job of {@code jobFile} on {@code target}, resuming from {@code resume} ({@code latest} or a directory). */
    public static JobProcess start(ExecutionTarget target, Path jobFile, String resume, Faults faults, Path log)
            throws IOException {
        return start(target, jobFile, resume, faults, log, JobTempDirectories.defaultRoot());
    }

    /** {@link #start(ExecutionTarget, Path, String, Faults, Path)} with the child's temp directory in {@code tempRoot}. */
    static JobProcess start(ExecutionTarget target, Path jobFile, String resume, Faults faults, Path log, Path tempRoot)
            throws IOException {
        if (exiting) {
            throw new IllegalStateException("this JVM is exiting: no job process is started any more");
        }
        Files.writeString(log, "=== " + target.name() + " run --resume " + resume + " (faults: " + faults + ")\n",
                StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(target.jvmOptions()); // short-lived JVMs: start fast rather than peak fast
        ClassDataSharing sharing = ClassDataSharing.get();
        ClassDataSharing.Options sharingOptions = sharing == null ? new ClassDataSharing.Options(List.of(), false)
                : sharing.options(target, faults.none());
        command.addAll(sharingOptions.jvmOptions());
        if (faults.haltAt() != null) {
            command.add("-Donceflow.fault=" + faults.haltAt());
        }
        if (faults.delayAt() != null) {
            command.add("-Donceflow.fault.delay=" + faults.delayAt());
        }
        if (faults.commitFailures() != null) {
            command.add("-D" + CommitFailures.PROPERTY + "=" + faults.commitFailures().property());
        }
        long logStart = 0;
        Path tempDirectory = null;
        Process process = null;
        try {
            logStart = Files.size(log);
            tempDirectory = JobTempDirectories.create(tempRoot);
            Path absoluteJobFile = jobFile.toAbsolutePath();
            command.add("-Djava.io.tmpdir=" + tempDirectory);
            command.add("-cp");
            command.add(sharing == null ? System.getProperty("java.class.path") : sharing.classPath());
            command.add(target.mainClass());
            command.add("run");
            command.add(absoluteJobFile.toString());
            command.add("--resume");
            command.add(resume);
            command.add("--progress-interval");
            command.add("0");
            ProcessBuilder builder = new ProcessBuilder(command).directory(absoluteJobFile.getParent().toFile())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            builder.environment().remove("ONCEFLOW_FAULT");
            builder.environment().remove("ONCEFLOW_FAULT_DELAY");
            process = builder.start();
        } finally {
            if (process == null) {
                // Nothing started: the archive is left for a later run to write, and nothing is left in /tmp.
                if (sharingOptions.writesArchive()) {
                    sharing.notStarted(target);
                }
                if (tempDirectory != null) {
                    JobTempDirectories.delete(tempDirectory);
                }
            }
        }
        // Before the exit handler can delete the directory; it cannot throw.
        JobTempDirectories.noteChild(tempDirectory, process.toHandle());
        // Tracked next, so that killAll and the exit hook see it whatever happens after.
        JobProcess job = new JobProcess(process, command, tempDirectory, log, logStart);
        if (sharingOptions.writesArchive()) {
            sharing.started(target, process);
        }
        return job;
    }

    /**
     * What the CLI prints once the job runs ({@code Job <name>: <pipeline>; checkpoints every ...}),
     * right after it submitted the job: restore and recovery come after it.
     */
    private static final String STARTED = "; checkpoints every ";

    /**
     * Waits until the job has started (the CLI printed its start line), then up to {@code millis}
     * more for the process to exit by itself; true if it is still running then, for a kill. Random
     * kills are timed from the job's start, not the JVM's: start-up takes 1 to 3 s on two cores, and
     * a kill during it exercises no step of the protocol while counting as a crash.
     *
     * @throws AssertionError if the job neither starts nor exits within two minutes
     */
    public boolean stillRunningAfter(long millis) throws InterruptedException {
        try {
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofMinutes(2))
                    .pollInterval(java.time.Duration.ofMillis(5))
                    .until(() -> !process.isAlive() || started());
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("the job neither started nor ended within 2 minutes; log:\n" + tailQuietly(), e);
        }
        return !exitsWithin(millis);
    }

    private boolean started() throws IOException {
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(log)) {
            long size = channel.size() - logStart;
            if (size <= 0) {
                return false;
            }
            java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate((int) Math.min(size, 1 << 20));
            channel.read(bytes, logStart);
            return new String(bytes.array(), 0, bytes.position(), StandardCharsets.UTF_8).contains(STARTED);
        }
    }

    private String tailQuietly() {
        try {
            return tail();
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    /** Waits up to {@code millis} for the process to exit by itself; true if it did. */
    public boolean exitsWithin(long millis) throws InterruptedException {
        return process.waitFor(millis, TimeUnit.MILLISECONDS);
    }

    /** The exit status of a process that has exited. */
    public int exitValue() {
        return process.exitValue();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Sends SIGKILL and waits until the process is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** Waits for the exit and returns its status; fails if it takes longer than {@code minutes}. */
    public int await(long minutes) throws InterruptedException, IOException {
        if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("the job did not end within " + minutes + " minutes; log:\n" + tail());
        }
        return process.exitValue();
    }

    /** Whether the process died at the armed fault point. */
    public boolean haltedAtFaultPoint() {
        return !process.isAlive() && process.exitValue() == FaultPoints.HALT_EXIT_CODE;
    }

    public long elapsedMillis() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /** The last lines of the child's output. */
    public String tail() throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }
}
