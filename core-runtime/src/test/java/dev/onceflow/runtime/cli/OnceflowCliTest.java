package dev.onceflow.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.runtime.checkpoint.CheckpointFixtures;
import dev.onceflow.runtime.checkpoint.CheckpointKind;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.checkpoint.CheckpointStorage;
import dev.onceflow.runtime.execution.JobClient;
import dev.onceflow.runtime.execution.KeyedCountJob;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The command line: bad input is exit status 2 and one line on stderr; listings show every checkpoint's state. */
class OnceflowCliTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return run(false, args);
    }

    /** {@code terminal}: as if the output were the user's terminal, which tests' output never is. */
    private int run(boolean terminal, String... args) {
        CommandLine cli = OnceflowCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        ((OnceflowCli.Run) cli.getSubcommands().get("run").getCommand()).terminal = terminal;
        return cli.execute(args);
    }

    private static List<String> lines(StringWriter writer) {
        return writer.toString().lines().toList();
    }

    @Test
    void validateAcceptsAGoodFile() throws Exception {
        Path file = JobFiles.write(dir, "good.yaml", JobFiles.valid(dir));

        int status = run("validate", file.toString());

        assertThat(status).isZero();
        assertThat(lines(out)).containsExactly(file + " is valid: datagen -> count-by-key -> filesystem");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void validateRejectsABadFileWithExitTwoAndOneLineOnStderr() throws Exception {
        Path file = JobFiles.write(dir, "bad.yaml", JobFiles.validWith(dir, "rows: 100", "rowz: 100"));

        int status = run("validate", file.toString());

        assertThat(status).isEqualTo(2);
        assertThat(lines(err)).hasSize(1).first().asString()
                .startsWith("onceflow: " + file + ": source 'datagen': unknown option 'rowz'; accepted options: rows, ");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void validateRejectsAnUnparsableFileWithOneLine() throws Exception {
        Path file = JobFiles.write(dir, "bad.yaml", JobFiles.validWith(dir, "mode: exactly-once", "mode: twice"));

        int status = run("validate", file.toString());

        assertThat(status).isEqualTo(2);
        assertThat(lines(err)).hasSize(1).first().asString().startsWith("onceflow: " + file).contains("'twice'");
    }

    /** These crashed with a stack trace and exit 1 (a NullPointerException in the loader, an ArithmeticException). */
    @Test
    void inputThatCrashedTheLoaderIsBadInputInOneLine() throws Exception {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("source:\n  type: datagen\n  options:\n    rows: 100\n    keys: 3\n", "source:\n");
        cases.put("name: good-job", "name: ~");
        cases.put("interval: 100ms", "interval: 99999999999999999h");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            err.getBuffer().setLength(0);
            Path file = JobFiles.write(dir, "bad.yaml", JobFiles.validWith(dir, c.getKey(), c.getValue()));

            int status = run("validate", file.toString());

            assertThat(status).as("%s: %s", c.getValue(), err).isEqualTo(2);
            assertThat(lines(err)).as(c.getValue()).singleElement().asString().startsWith("onceflow: " + file + ":");
        }
        assertThat(out.toString()).isEmpty();
    }

    /** A 300-character name failed only when the job created its checkpoint directory, leaving its parent behind. */
    @Test
    void aNameTooLongIsRefusedBeforeAnyDirectoryIsCreated() throws Exception {
        String name = "n".repeat(300);
        Path file = JobFiles.write(dir, "long.yaml", JobFiles.validWith(dir, "name: good-job", "name: " + name));

        int status = run("run", file.toString(), "--progress-interval", "0");

        assertThat(status).as(err.toString()).isEqualTo(2);
        assertThat(lines(err)).singleElement().asString().isEqualTo("onceflow: " + file + ":1: name '" + "n".repeat(40)
                + "...' (300 characters) is not a job name; expected 1 to 100 letters, digits, '.', '_' or '-', other"
                + " than '.' and '..' (it names the job's checkpoint directory)");
        try (var left = java.nio.file.Files.list(dir)) {
            assertThat(left).as("nothing created").containsExactly(file);
        }
        assertThat(out.toString()).isEmpty();
    }

    /** A sink path that is a file was found only after the job started, with a stack trace of 60 lines and more. */
    @Test
    void aSinkPathThatIsAFileIsRefusedBeforeTheJobStarts() throws Exception {
        Path taken = java.nio.file.Files.writeString(dir.resolve("out"), "a file where the output directory belongs");
        Path file = JobFiles.write(dir, "good.yaml", JobFiles.valid(dir));

        int status = run("run", file.toString(), "--progress-interval", "0");

        assertThat(status).as(err.toString()).isEqualTo(2);
        assertThat(lines(err)).singleElement().asString().isEqualTo("onceflow: " + file + ": sink 'filesystem': option"
                + " 'path' has value '" + taken + "', which is an existing file, not a directory; expected a directory:"
                + " a local path or a URI such as hdfs://namenode:8020/out");
        assertThat(out.toString()).as("the job did not start").isEmpty();
        assertThat(dir.resolve("checkpoints")).doesNotExist();
    }

    @Test
    void validateOfAMissingFileIsBadInput() {
        Path missing = dir.resolve("missing.yaml");

        int status = run("validate", missing.toString());

        assertThat(status).isEqualTo(2);
        assertThat(lines(err)).containsExactly("onceflow: " + missing + ": no such file");
    }

    @Test
    void runPrintsTheStatusPageAddressRightAfterTheStartLine() throws Exception {
        Path file = JobFiles.write(dir, "good.yaml", JobFiles.valid(dir));

        int status = run("run", file.toString(), "--progress-interval", "0");

        assertThat(status).as(err.toString()).isZero();
        List<String> lines = lines(out);
        assertThat(lines.get(0)).startsWith("Job good-job: datagen -> count-by-key -> filesystem; checkpoints every ");
        Path tokenFile = dir.resolve("checkpoints").resolve("good-job").resolve(ControlAccess.TOKEN_FILE);
        assertThat(lines.get(1)).as("the token only on a terminal").matches("Status page: http://127\\.0\\.0\\.1:\\d+/"
                + Pattern.quote("#token=<the contents of " + tokenFile + "> (JSON at /status, /checkpoints, /metrics)"));
    }

    /** The user who started the job opens the page from the terminal, with the token in the address's fragment. */
    @Test
    void onATerminalTheStatusPageAddressCarriesTheToken() throws Exception {
        Path file = JobFiles.write(dir, "good.yaml", JobFiles.valid(dir));

        int status = run(true, "run", file.toString(), "--progress-interval", "0");

        assertThat(status).as(err.toString()).isZero();
        assertThat(lines(out).get(1)).matches("Status page: http://127\\.0\\.0\\.1:\\d+/#token=[A-Za-z0-9_-]{43} "
                + "\\(JSON at /status, /checkpoints, /metrics\\)");
    }

    /**
     * {@code onceflow savepoint} sends the token it reads beside {@code _control.json}; a wrong or
     * missing one fails in one line, and the job runs on.
     */
    @Test
    void savepointSendsTheJobsTokenAndFailsInOneLineWithoutTheRightOne() throws Exception {
        JobClient client = new KeyedCountJob(dir.resolve("checkpoints"), dir.resolve("output"), 100_000_000)
                .rowsPerSecond(5_000).executeAsync("controlled");
        try (ControlServer server = new ControlServer(client)) {
            Path tokenFile = Path.of(server.tokenFile().toString());
            await().atMost(Duration.ofSeconds(30)).until(() -> client.checkpointHistory().entries().size() >= 1);

            int taken = run("savepoint", client.jobDirectory().toString());

            assertThat(taken).as(err.toString()).isZero();
            assertThat(lines(out)).singleElement().asString()
                    .startsWith("Savepoint written to " + client.jobDirectory().resolve("savepoint-"));

            Files.writeString(tokenFile, "A".repeat(43));
            int wrong = run("savepoint", client.jobDirectory().toString(), "--stop");

            assertThat(wrong).isEqualTo(OnceflowCli.JOB_FAILED);
            assertThat(lines(err)).containsExactly("onceflow: savepoint failed: wrong token; the job's token is in " + tokenFile);

            err.getBuffer().setLength(0);
            Files.delete(tokenFile);
            int missing = run("savepoint", client.jobDirectory().toString(), "--stop");

            assertThat(missing).isEqualTo(OnceflowCli.BAD_INPUT);
            assertThat(lines(err)).containsExactly("onceflow: cannot read the job's token: " + tokenFile + " does not exist");
            assertThat(client.result()).as("the job runs on").isNotDone();
        } finally {
            client.cancel();
            client.result().get(30, TimeUnit.SECONDS); // ended before the test's directory is deleted
        }
    }

    /** A stateful step got another uid: refused in one line that names the flag, then resumed with it. */
    @Test
    void resumingWithStateOfAnOperatorTheJobNoLongerHasNeedsTheFlag() throws Exception {
        Path first = JobFiles.write(dir, "good.yaml", JobFiles.valid(dir));
        assertThat(run("run", first.toString(), "--progress-interval", "0")).as(err.toString()).isZero();
        Path renamed = JobFiles.write(dir, "renamed.yaml", JobFiles.validWith(dir, "uid: count", "uid: count-v2"));
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);

        int refused = run("run", renamed.toString(), "--resume", "latest", "--progress-interval", "0");

        assertThat(refused).isEqualTo(2);
        assertThat(lines(err)).singleElement().asString().startsWith("onceflow: ")
                .contains("holds state of operators [count]").contains("--allow-non-restored-state");
        assertThat(out.toString()).as("nothing ran").isEmpty();

        err.getBuffer().setLength(0);
        int allowed = run("run", renamed.toString(), "--resume", "latest", "--allow-non-restored-state",
                "--progress-interval", "0");

        assertThat(allowed).as(err.toString()).isZero();
        assertThat(out.toString()).contains("Job good-job finished: read 0 records");
    }

    /**
     * Only a configuration error is bad input. An IllegalArgumentException from anywhere else is a
     * bug: exit status 1, one line that says so, and the stack trace in the log, not exit 2 and a
     * message that blames the input.
     */
    @Test
    void anIllegalArgumentExceptionThatIsNoConfigurationErrorIsReportedAsABug() throws Exception {
        CommandLine cli = OnceflowCli.commandLine();
        cli.setErr(new PrintWriter(err, true));
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream stderr = System.err;
        int status;
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8)); // where the log's console appender writes
        try {
            status = cli.getExecutionExceptionHandler().handleExecutionException(
                    new IllegalArgumentException("key group 7 is outside 0..3"), cli, null);
        } finally {
            System.setErr(stderr);
        }

        assertThat(status).isEqualTo(1);
        assertThat(lines(err)).containsExactly("onceflow: internal error (a bug in onceflow, please report it): "
                + "java.lang.IllegalArgumentException: key group 7 is outside 0..3; its stack trace is in the log");
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("java.lang.IllegalArgumentException: key group 7")
                .contains("\tat " + OnceflowCliTest.class.getName() + ".");
    }

    /** Flags and locations the runtime refuses with an IllegalArgumentException are still bad input, in one line. */
    @Test
    void badFlagsAndLocationsAreBadInput() throws Exception {
        Path file = JobFiles.write(dir, "good.yaml", JobFiles.valid(dir));
        String hdfs = "hdfs://namenode:8020/checkpoints/good-job";
        String noStorage = "no checkpoint storage for '" + hdfs + "': nothing on the class path serves 'hdfs:'";

        assertThat(run("run", file.toString(), "--progress-interval", "soon")).isEqualTo(2);
        assertThat(run("run", file.toString(), "--resume", hdfs + "/chk-1")).isEqualTo(2);
        assertThat(run("savepoint", hdfs)).isEqualTo(2);
        assertThat(run("checkpoints", hdfs)).isEqualTo(2);

        List<String> messages = lines(err);
        assertThat(messages).hasSize(4);
        assertThat(messages.get(0)).isEqualTo("onceflow: --progress-interval 'soon' is not a duration such as 500ms, 10s, 5m");
        assertThat(messages.get(1)).startsWith("onceflow: --resume " + hdfs + "/chk-1: no checkpoint storage for '");
        assertThat(messages.get(2)).startsWith("onceflow: savepoint " + hdfs + ": " + noStorage);
        assertThat(messages.get(3)).startsWith("onceflow: checkpoints " + hdfs + ": " + noStorage);
        assertThat(out.toString()).as("nothing ran").isEmpty();
    }

    @Test
    void checkpointsListsCompleteCorruptAndIncompleteOnes() throws Exception {
        CheckpointStorage storage = new CheckpointStorage(CheckpointLocation.of(dir.resolve("job")));
        CheckpointFixtures.complete(storage, 1, CheckpointKind.CHECKPOINT);
        CheckpointFixtures.flipByte(CheckpointFixtures.stateFile(
                CheckpointFixtures.complete(storage, 2, CheckpointKind.CHECKPOINT)));
        CheckpointFixtures.incomplete(storage, 3);
        CheckpointFixtures.complete(storage, 4, CheckpointKind.SAVEPOINT);

        int status = run("checkpoints", storage.jobDirectory().toString());

        assertThat(status).isZero();
        List<String> lines = lines(out);
        assertThat(lines).hasSize(5);
        assertThat(lines.get(0)).startsWith("ID").contains("KIND", "STATUS", "SIZE", "DURATION", "COMPLETED", "PATH");
        assertThat(lines.get(1).split("\\s+")).startsWith("1", "checkpoint", "COMPLETE");
        assertThat(lines.get(1)).endsWith(storage.jobDirectory().resolve("chk-1").toString());
        assertThat(lines.get(2).split("\\s+")).startsWith("2", "checkpoint", "CORRUPT");
        assertThat(lines.get(2)).contains("fails its checksum");
        assertThat(lines.get(3).split("\\s+")).startsWith("3", "checkpoint", "INCOMPLETE");
        assertThat(lines.get(4).split("\\s+")).startsWith("4", "savepoint", "COMPLETE");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void checkpointsOfAnEmptyDirectorySaysNone() {
        int status = run("checkpoints", dir.toString());

        assertThat(status).isZero();
        assertThat(lines(out)).hasSize(2).last().isEqualTo("(none)");
    }

    @Test
    void checkpointsOfAMissingDirectoryIsBadInput() {
        Path missing = dir.resolve("no-such-job");

        int status = run("checkpoints", missing.toString());

        assertThat(status).isEqualTo(2);
        assertThat(lines(err)).containsExactly("onceflow: " + missing + ": no such directory");
    }

    /**
     * EO-5. The reliability review's case: chk-N completed (so its transactions may be committed)
     * and then its {@code _metadata} went bad. {@code --resume latest} used to restore chk-N-1 with
     * a WARN and exit 0, writing chk-N's output a second time. If this fails, look at
     * {@code RestorePoints.choose}: it must not skip a completed checkpoint that cannot be read.
     */
    @Test
    void resumeLatestRefusesWhenTheNewestCompletedCheckpointCannotBeReadAndNamesTheChoices() throws Exception {
        Path job = jobThatCheckpointsMidRun();
        List<Path> completed = runToItsEnd(job);
        Path newest = completed.get(completed.size() - 1);
        Path older = completed.get(completed.size() - 2);
        CheckpointFixtures.flipByte(newest.resolve(CheckpointFixtures.METADATA));
        Map<Path, String> committed = committedOutput();
        clearOutput();

        int refused = run("run", job.toString(), "--resume", "latest", "--progress-interval", "0");

        assertThat(refused).as(err.toString()).isEqualTo(OnceflowCli.BAD_INPUT);
        assertThat(lines(err)).singleElement().asString()
                .startsWith("onceflow: " + newest.getFileName() + " is the newest completed checkpoint of job good-job"
                        + " and cannot be read (")
                .contains("fails its checksum")
                .contains("sinks may already have committed its output")
                .contains("Repair " + newest + " and run again with --resume latest")
                .endsWith("accept duplicates with --resume " + older + " --accept-duplicates");
        assertThat(out.toString()).as("nothing ran").isEmpty();
        assertThat(committedOutput()).as("no output written").isEqualTo(committed);

        clearOutput();
        // The first checkpoint, not the one the message names: the last periodic checkpoint may come
        // after the last record, and then nothing would be written again.
        Path first = completed.get(0);
        int accepted = run("run", job.toString(), "--resume", first.toString(), "--accept-duplicates",
                "--progress-interval", "0");

        assertThat(accepted).as(err.toString()).isZero();
        assertThat(out.toString()).contains("Restoring " + first + " with --accept-duplicates: duplicates may follow")
                .contains("Job good-job finished");
        assertThat(lineCount(committedOutput())).as("the records after %s, written again", first.getFileName())
                .isGreaterThan(lineCount(committed));
    }

    /** EO-5: a named checkpoint older than a completed one repeats the same output, so it takes the same flag. */
    @Test
    void resumingAnOlderCheckpointThanACompletedOneNeedsAcceptDuplicates() throws Exception {
        Path job = jobThatCheckpointsMidRun();
        List<Path> completed = runToItsEnd(job);
        Path older = completed.get(0);
        Path newest = completed.get(completed.size() - 1);
        Map<Path, String> committed = committedOutput();
        clearOutput();

        int refused = run("run", job.toString(), "--resume", older.toString(), "--progress-interval", "0");

        assertThat(refused).as(err.toString()).isEqualTo(OnceflowCli.BAD_INPUT);
        assertThat(lines(err)).singleElement().asString()
                .startsWith("onceflow: " + older + " is checkpoint " + CheckpointStorage.idOf(CheckpointLocation.of(older))
                        + ", but job good-job completed " + newest.getFileName() + " after it")
                .contains("--resume latest")
                .contains("--resume " + older + " --accept-duplicates");
        assertThat(out.toString()).as("nothing ran").isEmpty();
        assertThat(committedOutput()).as("no output written").isEqualTo(committed);
    }

    /**
     * A checkpoint directory without {@code _metadata} never completed, so no sink committed its
     * output: {@code --resume latest} passes over it without a word and restores the one before.
     */
    @Test
    void resumeLatestPassesOverANewerCheckpointThatNeverCompleted() throws Exception {
        Path job = JobFiles.write(dir, "good.yaml", JobFiles.valid(dir));
        assertThat(run("run", job.toString(), "--progress-interval", "0")).as(err.toString()).isZero();
        Path newest = completedCheckpoints().get(completedCheckpoints().size() - 1);
        Path incomplete = Files.createDirectory(newest.resolveSibling("chk-" + (CheckpointStorage.idOf(
                CheckpointLocation.of(newest)) + 5)));
        try (var files = Files.list(newest)) {
            // A state file written, and the crash before _metadata.
            Files.copy(files.filter(f -> f.toString().endsWith(".state")).findFirst().orElseThrow(),
                    incomplete.resolve("stage0-0.state"));
        }
        clearOutput();

        int status = run("run", job.toString(), "--resume", "latest", "--progress-interval", "0");

        assertThat(status).as(err.toString()).isZero();
        assertThat(err.toString()).isEmpty();
        assertThat(out.toString()).contains("Job good-job finished").doesNotContain("duplicates");
    }

    /** A completed checkpoint that cannot be read was committed all the same: starting over is not silent either. */
    @Test
    void runWithoutResumeIsRefusedEvenIfNoCompletedCheckpointCanBeRead() throws Exception {
        Path job = JobFiles.write(dir, "good.yaml", JobFiles.valid(dir));
        assertThat(run("run", job.toString(), "--progress-interval", "0")).as(err.toString()).isZero();
        for (Path checkpoint : completedCheckpoints()) {
            CheckpointFixtures.flipByte(checkpoint.resolve(CheckpointFixtures.METADATA));
        }
        Map<Path, String> committed = committedOutput();
        clearOutput();

        int status = run("run", job.toString(), "--progress-interval", "0");

        assertThat(status).isEqualTo(OnceflowCli.BAD_INPUT);
        assertThat(lines(err)).singleElement().asString().contains("already has completed checkpoints");
        assertThat(committedOutput()).as("no output written").isEqualTo(committed);
    }

    @Test
    void acceptDuplicatesGoesOnlyWithANamedCheckpoint() throws Exception {
        Path job = JobFiles.write(dir, "good.yaml", JobFiles.valid(dir));

        int status = run("run", job.toString(), "--resume", "latest", "--accept-duplicates");

        assertThat(status).isEqualTo(OnceflowCli.BAD_INPUT);
        assertThat(lines(err)).containsExactly("onceflow: --accept-duplicates goes with --resume <checkpoint or"
                + " savepoint dir>: name the one to restore");
        assertThat(out.toString()).as("nothing ran").isEmpty();
    }

    /** 1,500 rows at 1,000 a second with checkpoints every 100 ms: the three newest stay, all from mid-run. */
    private Path jobThatCheckpointsMidRun() throws Exception {
        // Every checkpoint kept, so the first ones are certainly older than the last records.
        String yaml = JobFiles.validWith(dir, "rows: 100", "rows: 1500\n    rows-per-second: 1000")
                .replace("  mode: exactly-once\n", "  mode: exactly-once\n  retained: 100\n");
        return JobFiles.write(dir, "slow.yaml", yaml);
    }

    /** Runs {@code job} until its input ends; its completed checkpoints, oldest first, at least two. */
    private List<Path> runToItsEnd(Path job) throws Exception {
        assertThat(run("run", job.toString(), "--progress-interval", "0")).as(err.toString()).isZero();
        List<Path> completed = completedCheckpoints();
        assertThat(completed).as("checkpoints completed mid-run and were kept").hasSizeGreaterThanOrEqualTo(2);
        return completed;
    }

    /** The job's checkpoints and savepoints with {@code _metadata}, oldest first. */
    private List<Path> completedCheckpoints() throws Exception {
        try (var dirs = Files.list(dir.resolve("checkpoints").resolve("good-job"))) {
            return dirs.filter(d -> Files.exists(d.resolve(CheckpointFixtures.METADATA)))
                    .sorted(java.util.Comparator.comparingLong(d -> CheckpointStorage.idOf(CheckpointLocation.of(d))))
                    .toList();
        }
    }

    /** The sink's visible files and their contents, as a committed reader sees them. */
    private Map<Path, String> committedOutput() throws Exception {
        Map<Path, String> files = new java.util.TreeMap<>();
        try (var walk = Files.walk(dir.resolve("out"))) {
            for (Path f : walk.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().startsWith("."))
                    .toList()) {
                files.put(f, Files.readString(f));
            }
        }
        return files;
    }

    private static long lineCount(Map<Path, String> files) {
        return files.values().stream().mapToLong(content -> content.lines().count()).sum();
    }

    private void clearOutput() {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
    }

    @Test
    void theCommittedOutputOfAnHdfsSinkIsPrintedAsAUriNotAsALocalPath() {
        assertThat(OnceflowCli.displayPath("hdfs://127.0.0.1:9000/jobs/out")).isEqualTo("hdfs://127.0.0.1:9000/jobs/out");
        assertThat(OnceflowCli.displayPath("file:/tmp/out")).isEqualTo("file:/tmp/out");
        assertThat(OnceflowCli.displayPath("onceflow-data/out"))
                .isEqualTo(java.nio.file.Path.of("onceflow-data/out").toAbsolutePath().toString());
    }
}
