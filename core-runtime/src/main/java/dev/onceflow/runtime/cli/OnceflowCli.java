package dev.onceflow.runtime.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceflow.runtime.checkpoint.CheckpointFileSystem;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.checkpoint.CheckpointStats;
import dev.onceflow.runtime.checkpoint.CheckpointStorage;
import dev.onceflow.runtime.execution.DuplicateRiskException;
import dev.onceflow.runtime.execution.IncompatibleRestorePointException;
import dev.onceflow.runtime.execution.JobClient;
import dev.onceflow.runtime.execution.JobExecutionException;
import dev.onceflow.runtime.execution.JobProgress;
import dev.onceflow.runtime.execution.JobResult;
import dev.onceflow.runtime.execution.RestoreSetting;
import dev.onceflow.runtime.metrics.JobMetrics;
import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** The {@code onceflow} command line. */
@Command(name = "onceflow", mixinStandardHelpOptions = true, version = "onceflow 0.1.0",
        description = "Runs jobs of replayable sources and transactional sinks with exactly-once checkpoints.",
        subcommands = {OnceflowCli.Run.class, OnceflowCli.Validate.class, OnceflowCli.Savepoint.class,
                OnceflowCli.Checkpoints.class, OnceflowCli.ListConnectors.class})
public final class OnceflowCli {

    /** Exit status when the job failed. */
    static final int JOB_FAILED = 1;
    /** Exit status for bad input: job file, options, paths. */
    static final int BAD_INPUT = 2;

    static {
        // Before the first logger below: logback reads its configuration when the first one is
        // made, and without this one it logs everything, DEBUG included, to standard output.
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "onceflow-logback.xml");
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(OnceflowCli.class);

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new OnceflowCli());
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            // Expected problems are one line. Only the types that mean bad input are exit status 2:
            // any IllegalArgumentException used to be, which printed a bug (a wrong argument
            // between two of our own classes) as if the user's input were wrong, without a trace.
            if (e instanceof JobFileException || e instanceof OptionException || e instanceof java.io.IOException) {
                cmd.getErr().println("onceflow: " + e.getMessage());
                return BAD_INPUT;
            }
            if (e instanceof JobExecutionException) {
                cmd.getErr().println("onceflow: " + e.getMessage());
                return JOB_FAILED;
            }
            return reportBug(e, cmd);
        });
        return cli;
    }

    /**
     * Anything else is a bug: one line that says so on stderr and the stack trace in the log,
     * where a bug report can take it from. Exit status 1, like a failed job: the command did not
     * do its work, and the input may well be fine.
     */
    static int reportBug(Exception e, CommandLine cmd) {
        LOG.error("Internal error: a bug in onceflow, not a problem with the input", e);
        cmd.getErr().println("onceflow: internal error (a bug in onceflow, please report it): " + e
                .toString().lines().findFirst().orElse("") + "; its stack trace is in the log");
        return JOB_FAILED;
    }

    /** {@code value} of a command-line option as a checkpoint location a module on the class path serves. */
    static CheckpointLocation location(String option, String value) throws JobFileException {
        try {
            CheckpointLocation location = CheckpointLocation.of(value);
            CheckpointFileSystem.requireSupported(location);
            return location;
        } catch (IllegalArgumentException e) {
            throw new JobFileException(option + " " + value + ": " + e.getMessage());
        }
    }

    /**
     * The connectors of the classpath and of the plugins directory ({@code --plugins}, else
     * {@code $ONCEFLOW_PLUGINS}, else {@code plugins}). Makes their context class loader this
     * thread's, so that every thread the job starts from here inherits it.
     */
    static Connectors connectors(Path plugins) throws java.io.IOException {
        Path dir = plugins != null ? plugins
                : System.getenv("ONCEFLOW_PLUGINS") != null ? Path.of(System.getenv("ONCEFLOW_PLUGINS")) : Path.of("plugins");
        Connectors connectors = Connectors.discover(dir);
        Thread.currentThread().setContextClassLoader(connectors.contextClassLoader());
        return connectors;
    }

    @Command(name = "run", mixinStandardHelpOptions = true, description = "Runs a job file until its sources end (or forever for unbounded ones).")
    static final class Run implements Callable<Integer> {

        @Parameters(index = "0", paramLabel = "JOB_FILE", description = "The job's YAML file.")
        Path jobFile;

        @CommandLine.Option(names = "--resume", paramLabel = "latest|PATH",
                description = "Restore the latest completed checkpoint of this job (fresh start if there is none; "
                        + "refused if it cannot be read), or the checkpoint or savepoint directory given.")
        String resume;

        @CommandLine.Option(names = "--accept-duplicates",
                description = "With --resume PATH: restore it even though the job completed a newer checkpoint "
                        + "or savepoint; what the sink committed after PATH is written again.")
        boolean acceptDuplicates;

        @CommandLine.Option(names = "--fresh",
                description = "Start from the beginning even though the job has completed checkpoints "
                        + "(what the sink already committed stays, so delete it first).")
        boolean fresh;

        @CommandLine.Option(names = "--allow-non-restored-state",
                description = "Allow restoring state of operators the job no longer has.")
        boolean allowNonRestoredState;

        @CommandLine.Option(names = "--progress-interval", defaultValue = "2s", paramLabel = "DURATION",
                description = "How often to print progress (default ${DEFAULT-VALUE}); 0 turns it off.")
        String progressInterval;

        @CommandLine.Option(names = "--plugins", paramLabel = "DIR", description = "Directory of connector jars.")
        Path plugins;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        /** Whether the output is the user's terminal, where the status page's address may carry the token. */
        boolean terminal = isTerminal();

        @Override
        public Integer call() throws Exception {
            JobFileLoader.LoadedJob job = new JobFileLoader(connectors(plugins)).load(jobFile);
            if (acceptDuplicates && (resume == null || resume.equals("latest"))) {
                // Accepting duplicates is a decision about one named restore point, never a fallback.
                throw new JobFileException("--accept-duplicates goes with --resume <checkpoint or savepoint dir>:"
                        + " name the one to restore");
            }
            RestoreSetting restore = resume == null ? RestoreSetting.fresh()
                    : resume.equals("latest") ? RestoreSetting.latest()
                    : acceptDuplicates ? RestoreSetting.fromPath(location("--resume", resume)).acceptingDuplicates()
                    : RestoreSetting.fromPath(location("--resume", resume));
            if (restore instanceof RestoreSetting.FromPath p && !CheckpointFileSystem.of(p.directory()).exists(p.directory())) {
                throw new JobFileException("--resume " + resume + ": no such checkpoint or savepoint directory");
            }
            if (resume != null && fresh) {
                throw new JobFileException("--fresh and --resume exclude each other");
            }
            CheckpointLocation jobDirectory = job.environment().checkpointConfig().directory().resolve(job.spec().name());
            if (resume == null && !fresh && !new CheckpointStorage(jobDirectory).completedNewestFirst().isEmpty()) {
                // Starting over silently would emit everything again next to what was committed;
                // a completed checkpoint that cannot be read was committed all the same (EO-5).
                throw new JobFileException("job " + job.spec().name() + " already has completed checkpoints in "
                        + jobDirectory + "; continue it with --resume latest, or delete its output and start over with --fresh");
            }
            long progressMillis;
            try {
                progressMillis = Option.parseDuration(progressInterval).toMillis();
            } catch (IllegalArgumentException e) {
                throw new JobFileException("--progress-interval " + e.getMessage());
            }
            PrintWriter out = spec.commandLine().getOut();
            JobClient client;
            try {
                client = job.environment().setRestore(restore).setAllowNonRestoredState(allowNonRestoredState)
                        .executeAsync(job.spec().name());
            } catch (IncompatibleRestorePointException | DuplicateRiskException e) {
                throw new JobFileException(e.getMessage());
            }
            var checkpoints = job.environment().checkpointConfig();
            out.printf("Job %s: %s; checkpoints every %s (%s) in %s%n", job.spec().name(), job.description(),
                    checkpoints.periodic() ? checkpoints.interval().toMillis() + " ms" : "- (off)",
                    checkpoints.mode() + (checkpoints.unaligned() ? ", unaligned" : ""), client.jobDirectory());
            if (acceptDuplicates) {
                out.printf("Restoring %s with --accept-duplicates: duplicates may follow; what the sink committed"
                        + " after it is written again%n", resume);
            }
            out.flush();
            // Open for the whole run, so `onceflow savepoint` can reach the job.
            ControlServer control = new ControlServer(client);
            try {
                // The token only on the terminal of the user who started the job: output that goes
                // to a file or a pipe (a service's log, CI, tee) may be read by others.
                out.printf("Status page: %s (JSON at /status, /checkpoints, /metrics)%n", terminal ? control.pageUrl()
                        : control.url() + "#token=<the contents of " + control.tokenFile() + ">");
                out.flush();
                JobResult result = await(client, out, progressMillis);
                long late = JobMetrics.lateRecords(client.meterRegistry());
                out.printf("Job %s %s: read %d records, wrote %d records%s%s%s.%n", result.jobName(),
                        result.status().name().toLowerCase(java.util.Locale.ROOT), result.recordsRead(),
                        result.recordsWritten(), result.restarts() > 0 ? " after " + result.restarts() + " restarts" : "",
                        result.deadLetters() > 0 ? ", sent " + result.deadLetters()
                                + " records it could not read to the dead letters" : "",
                        late > 0 ? ", left out " + late + (late == 1 ? " late record" : " late records") + " ("
                                + JobMetrics.RECORDS_LATE + ")" : "");
                Map<String, Object> sinkOptions = job.spec().sink().options();
                if (sinkOptions != null && sinkOptions.get("path") != null) {
                    out.printf("Committed output: %s%n", displayPath(sinkOptions.get("path").toString()));
                }
                if (result.lastCheckpoint() != null) {
                    out.printf("Last checkpoint: %s%n", result.lastCheckpoint());
                }
                out.printf("To resume this job after a crash: onceflow run %s --resume latest%n", jobFile);
                out.flush();
                return 0;
            } finally {
                control.close();
            }
        }

        private static JobResult await(JobClient client, PrintWriter out, long progressMillis) throws Exception {
            while (true) {
                try {
                    return client.result().get(progressMillis > 0 ? progressMillis : Long.MAX_VALUE, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    out.println(describe(client.progress()));
                    out.flush();
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception cause ? cause : e;
                }
            }
        }

        static String describe(JobProgress p) {
            CheckpointStats c = p.lastCheckpoint();
            String checkpoint = c == null ? "no checkpoint yet"
                    : c.completed() ? String.format("checkpoint %d completed in %d ms (%d bytes%s)", c.checkpointId(),
                            c.durationMillis(), c.fullStateBytes(), c.stateBytes() < c.fullStateBytes()
                                    ? ", " + c.stateBytes() + " written" : "")
                    : String.format("checkpoint %d failed: %s", c.checkpointId(), c.failure());
            return String.format("[%s] read %d, wrote %d, %s%s%s", p.jobName(), p.recordsRead(), p.recordsWritten(),
                    p.deadLetters() > 0 ? p.deadLetters() + " dead letters, " : "", checkpoint,
                    p.restarts() > 0 ? ", " + p.restarts() + " restarts" : "");
        }
    }

    @Command(name = "validate", mixinStandardHelpOptions = true, description = "Checks a job file and its connector options without running it.")
    static final class Validate implements Callable<Integer> {

        @Parameters(index = "0", paramLabel = "JOB_FILE")
        Path jobFile;

        @CommandLine.Option(names = "--plugins", paramLabel = "DIR", description = "Directory of connector jars.")
        Path plugins;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            JobFileLoader.LoadedJob job = new JobFileLoader(connectors(plugins)).load(jobFile);
            spec.commandLine().getOut().printf("%s is valid: %s%n", jobFile, job.description());
            return 0;
        }
    }

    @Command(name = "savepoint", mixinStandardHelpOptions = true, description = "Takes a savepoint of a running job.")
    static final class Savepoint implements Callable<Integer> {

        @Parameters(index = "0", paramLabel = "JOB",
                description = "The running job's job file, or its checkpoint directory (<checkpoints.dir>/<name>, "
                        + "a path or a URI such as hdfs://host:port/dir).")
        String job;

        @CommandLine.Option(names = "--stop", description = "Stop the job once the savepoint is complete.")
        boolean stop;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            CheckpointLocation jobDirectory;
            CheckpointLocation given = location("savepoint", job);
            if (given.isLocal() && Files.isRegularFile(given.toPath())) {
                JobFile file = JobFileLoader.parse(Path.of(job));
                jobDirectory = JobFileLoader.checkpointConfig(file.checkpoints(), job).directory().resolve(file.name());
            } else {
                jobDirectory = given;
            }
            int port = ControlServer.portOf(jobDirectory);
            String token = ControlAccess.readToken(jobDirectory);
            HttpResponse<String> response = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/savepoint" + (stop ? "?stop=true" : "")))
                            .header("Authorization", "Bearer " + token)
                            .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofMinutes(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            Map<?, ?> body = new ObjectMapper().readValue(response.body(), Map.class);
            if (response.statusCode() != 200) {
                spec.commandLine().getErr().println("onceflow: savepoint failed: " + body.get("error"));
                return JOB_FAILED;
            }
            spec.commandLine().getOut().printf("Savepoint written to %s%s%n", body.get("path"),
                    stop ? "; the job stops now" : "");
            return 0;
        }
    }

    @Command(name = "checkpoints", mixinStandardHelpOptions = true, description = "Lists the checkpoints and savepoints in a job's checkpoint directory.")
    static final class Checkpoints implements Callable<Integer> {

        @Parameters(index = "0", paramLabel = "DIR",
                description = "<checkpoints.dir>/<job name>: a path or a URI such as hdfs://host:port/dir")
        String directory;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            CheckpointStorage storage = new CheckpointStorage(location("checkpoints", directory));
            if (!storage.exists()) {
                throw new JobFileException(directory + ": no such directory");
            }
            PrintWriter out = spec.commandLine().getOut();
            List<CheckpointStorage.Listing> listings = storage.list();
            out.printf("%-8s %-10s %-10s %12s %10s  %-24s %s%n", "ID", "KIND", "STATUS", "SIZE", "DURATION", "COMPLETED", "PATH");
            for (CheckpointStorage.Listing l : listings) {
                var m = l.metadata();
                out.printf("%-8d %-10s %-10s %12s %10s  %-24s %s%s%n", l.id(),
                        l.directory().name().startsWith("savepoint") ? "savepoint" : "checkpoint",
                        l.status(), m == null ? "-" : m.fullStateSize() + " B",
                        m == null ? "-" : (m.completionTimestamp() - m.triggerTimestamp()) + " ms",
                        m == null ? "-" : Instant.ofEpochMilli(m.completionTimestamp()).toString(), l.directory(),
                        l.problem() == null ? "" : "  (" + l.problem() + ")");
            }
            if (listings.isEmpty()) {
                out.println("(none)");
            }
            return 0;
        }
    }

    @Command(name = "connectors", mixinStandardHelpOptions = true,
            description = "Lists the connectors and formats found, where each came from, and their options.")
    static final class ListConnectors implements Callable<Integer> {

        @CommandLine.Option(names = "--plugins", paramLabel = "DIR", description = "Directory of connector jars.")
        Path plugins;

        @CommandLine.Parameters(arity = "0..1", paramLabel = "NAME",
                description = "Shows only the connectors and formats of this name.")
        String name;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            Connectors connectors = connectors(plugins);
            PrintWriter out = spec.commandLine().getOut();
            int shown = print(out, connectors, "source", connectors.sources(), f -> f.description(), f -> f.options())
                    + print(out, connectors, "sink", connectors.sinks(), f -> f.description(), f -> f.options())
                    + print(out, connectors, "format", connectors.formats(), f -> f.description(), f -> f.options());
            if (name != null && shown == 0) {
                spec.commandLine().getErr().println("onceflow: no connector or format '" + name + "'; available: "
                        + String.join(", ", new java.util.TreeSet<>(java.util.stream.Stream.of(
                                connectors.sources().keySet(), connectors.sinks().keySet(),
                                connectors.formats().keySet()).flatMap(java.util.Set::stream).toList())));
                return 2;
            }
            return 0;
        }

        private <F> int print(PrintWriter out, Connectors connectors, String kind, java.util.Map<String, F> factories,
                java.util.function.Function<F, String> description, java.util.function.Function<F, List<Option<?>>> options) {
            int shown = 0;
            for (var entry : factories.entrySet()) {
                if (name != null && !name.equals(entry.getKey())) {
                    continue;
                }
                F factory = entry.getValue();
                out.printf("%s %s: %s (from %s)%n", kind, entry.getKey(), description.apply(factory),
                        connectors.origin(factory));
                for (Option<?> o : options.apply(factory)) {
                    out.printf("    %-22s %-9s %s%s%n", o.key(), o.typeName(),
                            o.isRequired() ? "(required) " : o.defaultText().map(v -> "(default " + v + ") ").orElse(""),
                            o.description());
                }
                shown++;
            }
            return shown;
        }
    }

    /** Whether standard input and output are a terminal. */
    static boolean isTerminal() {
        java.io.Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            // From JDK 22 there is a console even when the output goes to a file; isTerminal() tells.
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
        } catch (NoSuchMethodException e) {
            return true; // up to JDK 21 there is a console only when both are terminals
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }

    /** A URI (hdfs://..., file:/...) as given; a local path made absolute, so the user finds it from anywhere. */
    static String displayPath(String path) {
        return path.matches("[A-Za-z][A-Za-z0-9+.-]+:/.*") ? path : Path.of(path).toAbsolutePath().toString();
    }
}
