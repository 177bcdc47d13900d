package dev.onceflow.testing.elasticsearch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real single-node Elasticsearch for tests: the official distribution (see
 * {@link #start()} for where it comes from) run as a child process, with security off, HTTP and
 * transport on {@code 127.0.0.1} only, on ports chosen free at start, and its data, logs and
 * configuration in a directory of its own that {@link #close()} deletes.
 *
 * <p>A node takes seconds to start (7–8 s on an idle two-core machine, more on a busy one), so
 * test classes normally share one per JVM:
 *
 * <pre>{@code
 * ElasticsearchNode es = ElasticsearchNode.shared();
 * HttpRequest.newBuilder(es.httpUri().resolve("/idx/_doc/1?refresh=true")) ...
 * }</pre>
 *
 * <p>Tests that inject faults, or need an empty node, start their own and close it:
 *
 * <pre>{@code
 * try (ElasticsearchNode es = ElasticsearchNode.start()) {
 *     ... es.kill(); es.restart(); ...
 * }
 * }</pre>
 *
 * <p>Elasticsearch refuses to run as root. When the tests do (containers, CI), the node runs as
 * the system user {@value #RUN_AS_USER}, created on first use, through {@code runuser}.
 *
 * <p>The distribution is the lean one Elasticsearch publishes for integration tests: no
 * scripting, no ingest pipelines, no delete-by-query or reindex, and no {@code GET /}; document
 * and index APIs, bulk, search and {@code _cluster/health} are there.
 *
 * <p>No node outlives its test JVM: a shutdown hook kills each one still running at exit, and a
 * node whose test JVM dies without running hooks (SIGKILL) stops itself once the pipe from that
 * JVM to it is closed.
 *
 * <p>Thread-safe: the lifecycle methods are synchronized; the others only read fixed values.
 */
public final class ElasticsearchNode implements AutoCloseable {

    /** The system user the node runs as when the tests run as root. */
    public static final String RUN_AS_USER = "onceflow-es";

    private static final String HOST = "127.0.0.1";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration KILL_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration READY_POLL = Duration.ofMillis(200);
    private static final String HEAP = "-Xms512m -Xmx512m";
    /**
     * Elasticsearch 8.19 ships with a far newer JDK than 17, its minimum, and is mostly tested on
     * that, so a newer one is taken where installed (both start a node in about 7 s).
     */
    private static final Path PREFERRED_JAVA_HOME = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");
    /** The main class of the server JVM; the launcher JVM that starts it runs another one. */
    private static final String SERVER_MAIN_CLASS = "org.elasticsearch.bootstrap.Elasticsearch";
    private static final Pattern HEALTHY = Pattern.compile("\"status\"\\s*:\\s*\"(green|yellow)\"");
    private static final int LOG_TAIL_LINES = 60;

    /**
     * Runs the command given as its arguments and sends it SIGTERM once its own standard input
     * ends. That input is a pipe from the test JVM which nothing is written to, so it ends when that
     * JVM is gone, however it went: even a SIGKILLed test JVM, which runs no shutdown hook, leaves
     * no node behind. The command gets no input of its own; the watcher is stopped when it exits,
     * whose status becomes the script's. (Without {@code 2>/dev/null} the shell would report a
     * command it stopped as "Terminated" in the node's output.)
     */
    private static final String STOP_WHEN_INPUT_ENDS = """
            exec 3<&0
            "$@" </dev/null 3<&- &
            command_pid=$!
            (while read -r _ <&3; do :; done; kill -TERM "$command_pid" 2>/dev/null) &
            watcher_pid=$!
            exec 3<&-
            wait "$command_pid" 2>/dev/null
            status=$?
            kill "$watcher_pid" 2>/dev/null
            exit "$status"
            """;

    private static ElasticsearchNode shared;

    private final Path home;
    private final Path directory;
    private final Path logFile;
    private final int httpPort;
    private final int transportPort;
    private final boolean runAsOtherUser;
    private final boolean isShared;
    private final Thread killOnExit;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    private volatile Process process;
    private boolean closed;

    private ElasticsearchNode(Path home, Path directory, int httpPort, int transportPort, boolean runAsOtherUser,
            boolean isShared) {
        this.home = home;
        this.directory = directory;
        this.logFile = directory.resolve("stdout.log");
        this.httpPort = httpPort;
        this.transportPort = transportPort;
        this.runAsOtherUser = runAsOtherUser;
        this.isShared = isShared;
        this.killOnExit = new Thread(this::destroyAndDelete, "kill-elasticsearch-" + httpPort);
    }

    /**
     * The node shared by every test in this JVM: started on first call (7–8 s), stopped and
     * deleted by a JVM shutdown hook; never {@link #close()} it. Tests share its indices, so each
     * should use index names of its own.
     *
     * <p>If a test {@link #kill() killed} it without restarting it, it is restarted here.
     *
     * @throws IllegalStateException if it does not start, with the tail of its output
     */
    public static synchronized ElasticsearchNode shared() {
        if (shared == null) {
            shared = start(true);
        } else if (!shared.isRunning()) {
            shared.restart();
        }
        return shared;
    }

    /**
     * Starts a node of the caller's own, returning once its cluster health is green or yellow
     * (7–8 s). The caller closes it.
     *
     * <p>The distribution is the zip of
     * {@code org.elasticsearch.distribution.integ-test-zip:elasticsearch}, a dependency of this
     * module, which Maven fetches for every module that depends on this one: it is found where
     * Maven put it and unpacked once per machine into
     * {@code java.io.tmpdir/onceflow-elasticsearch-<version>}. The node runs on
     * {@code /usr/lib/jvm/temurin-25-jdk-amd64} if installed, else on the test JVM's own Java,
     * with a heap of 512 MB (300,000 small documents indexed in bulk filled half of it).
     *
     * @throws IllegalStateException if it does not start, with the tail of its output; nothing of
     *     it is left running or on disk then
     */
    public static ElasticsearchNode start() {
        return start(false);
    }

    private static ElasticsearchNode start(boolean isShared) {
        Path home = ElasticsearchDistribution.home();
        boolean runAsOtherUser = isRoot();
        ElasticsearchNode node;
        Path directory = null;
        try {
            if (runAsOtherUser) {
                ensureRunAsUserExists();
            }
            directory = createNodeDirectory(home, runAsOtherUser);
            int httpPort = freePort(Set.of());
            node = new ElasticsearchNode(home, directory, httpPort, freePort(Set.of(httpPort)), runAsOtherUser,
                    isShared);
        } catch (IOException e) {
            deleteQuietly(directory);
            throw new IllegalStateException("cannot prepare the Elasticsearch node: " + e, e);
        }
        Runtime.getRuntime().addShutdownHook(node.killOnExit);
        try {
            node.launch();
            return node;
        } catch (RuntimeException e) {
            node.closeNode();
            throw e;
        }
    }

    /** {@code http://127.0.0.1:<port>}: where the REST API listens; the same across restarts. */
    public URI httpUri() {
        return URI.create("http://" + HOST + ":" + httpPort);
    }

    /** {@code 127.0.0.1}: the only address the node listens on. */
    public String host() {
        return HOST;
    }

    /** The HTTP port; the same across restarts. */
    public int port() {
        return httpPort;
    }

    /** The node's standard output and error across all its starts (its log at INFO); deleted by {@link #close()}. */
    public Path logFile() {
        return logFile;
    }

    /** Whether the node's processes are running (it may not serve requests yet, or any more). */
    public synchronized boolean isRunning() {
        Process current = process;
        return current != null && current.isAlive();
    }

    /**
     * Stops the node gracefully (SIGTERM to its server JVM: it finishes what it was doing and
     * closes its shards, as on an orderly shutdown), starts it again on the same ports and data,
     * and returns once its cluster health is green or yellow again, that is once every index has
     * its primary shard back. If the node is not running (after {@link #kill()}) it is just started.
     *
     * @throws IllegalStateException if it does not come back, with the tail of its output
     */
    public synchronized void restart() {
        requireOpen();
        stopGracefully();
        launch();
    }

    /**
     * Sends SIGKILL to all of the node's processes and returns once they are gone: a crash, in
     * which the node flushes and closes nothing. What it acknowledged survives only as far as its
     * translog was synced (per request by default). Does nothing if it is not running.
     */
    public synchronized void kill() {
        destroyForcibly();
    }

    /**
     * Kills the node (nothing of it is kept, so nothing needs to be shut down cleanly), deletes its
     * directory, and returns once no process of it is left. Closing again does nothing.
     *
     * @throws IllegalStateException on the {@link #shared()} node, which the JVM's shutdown stops
     */
    @Override
    public void close() {
        if (isShared) {
            throw new IllegalStateException("the shared Elasticsearch node is stopped when the JVM exits;"
                    + " close only nodes from ElasticsearchNode.start()");
        }
        closeNode();
    }

    /** The node's processes now: the one this JVM started and its descendants, the server JVM among them. */
    List<ProcessHandle> processes() {
        Process current = process;
        if (current == null) {
            return List.of();
        }
        List<ProcessHandle> processes = new ArrayList<>();
        processes.add(current.toHandle());
        current.descendants().forEach(processes::add);
        return processes;
    }

    private synchronized void closeNode() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down: the hook runs anyway.
        }
        destroyAndDelete();
    }

    private void destroyAndDelete() {
        try {
            destroyForcibly();
        } finally {
            deleteQuietly(directory);
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the Elasticsearch node on port " + httpPort + " is closed");
        }
    }

    private void launch() {
        List<String> elasticsearch = List.of(home.resolve("bin/elasticsearch").toString(),
                "-E", "cluster.name=onceflow-" + httpPort,
                "-E", "discovery.type=single-node",
                "-E", "network.host=" + HOST,
                "-E", "http.port=" + httpPort,
                "-E", "transport.port=" + transportPort,
                "-E", "path.data=" + directory.resolve("data"),
                "-E", "path.logs=" + directory.resolve("logs"),
                "-E", "xpack.security.enabled=false",
                // A fuller disk than the default watermarks allow would make indices read-only mid-test.
                "-E", "cluster.routing.allocation.disk.threshold_enabled=false");
        List<String> command = new ArrayList<>();
        if (runAsOtherUser) {
            // Without --login, runuser passes the ES_* variables below on (it sets HOME, SHELL, USER, LOGNAME).
            command.addAll(List.of("runuser", "-u", RUN_AS_USER, "--"));
        }
        command.addAll(stopWhenInputEnds(elasticsearch));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        Map<String, String> environment = builder.environment();
        // The test JVM's own: surefire, for one, passes its class path in CLASSPATH, which would become
        // the server JVM's class path and fail the node's jar hell check (those jars are under /root
        // besides, out of the node user's reach). Elasticsearch's JVMs are configured by ES_* alone.
        for (String javaVariable : List.of("CLASSPATH", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS")) {
            environment.remove(javaVariable);
        }
        environment.put("ES_JAVA_HOME", javaHome().toString());
        environment.put("ES_JAVA_OPTS", HEAP);
        // The node writes to its configuration directory (it creates a keystore there), so it gets a copy.
        environment.put("ES_PATH_CONF", directory.resolve("config").toString());
        environment.put("ES_TMPDIR", directory.resolve("tmp").toString());
        // ES_TMPDIR is the server JVM's; the launcher JVM before it makes a final-flags* directory
        // (holding a gc.log) in its own java.io.tmpdir per start and never deletes it: /tmp gained
        // one per node start until the launcher was given the node's directory too. The script does
        // not quote CLI_JAVA_OPTS, so a directory it would split keeps the default (and the leftover).
        String launcherTmp = directory.resolve("tmp").toString();
        if (launcherCanTake(launcherTmp)) {
            String inherited = environment.getOrDefault("CLI_JAVA_OPTS", "");
            environment.put("CLI_JAVA_OPTS", (inherited + " -Djava.io.tmpdir=" + launcherTmp).strip());
        }
        try {
            Files.writeString(logFile, "=== " + String.join(" ", command) + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start Elasticsearch: " + e + logTail(), e);
        }
        awaitReady();
    }

    /**
     * Ready is a cluster health of green or yellow: the node has elected itself master and every
     * index has its primary shard (yellow, because replicas have no second node to go to).
     * Elasticsearch waits for that on the server side for up to a second per request; before its
     * HTTP port opens there is nothing to wait on but the process's exit, so the poll pauses on that.
     */
    private void awaitReady() {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        HttpRequest health = HttpRequest.newBuilder(httpUri().resolve("/_cluster/health?wait_for_status=yellow&timeout=1s"))
                .timeout(Duration.ofSeconds(10))
                .GET()
                .build();
        String lastAnswer = "no answer yet";
        Process current = process;
        try {
            while (true) {
                if (!current.isAlive()) {
                    throw new IllegalStateException("Elasticsearch exited with status " + current.exitValue()
                            + " before it was ready" + logTail());
                }
                try {
                    HttpResponse<String> response = http.send(health, HttpResponse.BodyHandlers.ofString());
                    if (response.statusCode() == 200 && HEALTHY.matcher(response.body()).find()) {
                        return;
                    }
                    lastAnswer = "HTTP " + response.statusCode() + " " + response.body();
                } catch (IOException e) {
                    lastAnswer = e.toString();
                }
                if (System.nanoTime() > deadline) {
                    destroyForcibly();
                    throw new IllegalStateException("Elasticsearch was not ready within " + READY_TIMEOUT.toSeconds()
                            + " s (last answer to GET /_cluster/health: " + lastAnswer + ")" + logTail());
                }
                current.waitFor(READY_POLL.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            destroyForcibly();
            throw new IllegalStateException("interrupted while waiting for Elasticsearch to start", e);
        }
    }

    private void stopGracefully() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            destroyForcibly(); // leftovers of a launcher that died on its own, if any
            return;
        }
        Optional<ProcessHandle> server = current.descendants()
                .filter(p -> p.info().commandLine().orElse("").contains(SERVER_MAIN_CLASS))
                .findFirst();
        if (server.isEmpty()) {
            destroyForcibly(); // still launching: nothing to shut down cleanly yet
            return;
        }
        // The launcher JVM and the wrapper script exit once the server JVM has.
        server.get().destroy();
        if (!awaitExit(server.get(), STOP_TIMEOUT) || !awaitExit(current.toHandle(), KILL_TIMEOUT)) {
            destroyForcibly();
        }
    }

    /**
     * SIGKILLs the process this JVM started, its descendants, and any process whose command line
     * names this node's directory: a server JVM spawned after the snapshot of descendants, and so
     * orphaned when its parent died, is found that way.
     */
    private void destroyForcibly() {
        Process current = process;
        if (current == null) {
            return;
        }
        Set<ProcessHandle> processes = new LinkedHashSet<>(processes());
        String underDirectory = directory + "/";
        try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
            all.filter(p -> p.info().commandLine().orElse("").contains(underDirectory)).forEach(processes::add);
        }
        processes.remove(ProcessHandle.current());
        processes.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle p : processes) {
            // Until they are gone their ports stay bound and their data directory locked.
            if (!awaitExit(p, KILL_TIMEOUT)) {
                throw new IllegalStateException("Elasticsearch process " + p.pid() + " survived SIGKILL for "
                        + KILL_TIMEOUT.toSeconds() + " s");
            }
        }
    }

    /** Waits for {@code process} to exit, even through interrupts (they are passed on after). */
    private static boolean awaitExit(ProcessHandle process, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    process.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    return true;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException | ExecutionException e) {
                    return !process.isAlive();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Whether {@code path} survives {@code elasticsearch-cli}'s unquoted {@code $CLI_JAVA_OPTS}
     * as one word: no blanks (split) and no {@code *?[} (pattern matched).
     */
    static boolean launcherCanTake(String path) {
        return path.chars().noneMatch(c -> Character.isWhitespace(c) || c == '*' || c == '?' || c == '[');
    }

    /** {@code command} run by a shell script that stops it once the test JVM is gone (see {@link #STOP_WHEN_INPUT_ENDS}). */
    static List<String> stopWhenInputEnds(List<String> command) {
        List<String> wrapped = new ArrayList<>(List.of("/bin/sh", "-c", STOP_WHEN_INPUT_ENDS, "onceflow-elasticsearch"));
        wrapped.addAll(command);
        return wrapped;
    }

    /** A fresh directory with {@code data}, {@code logs}, {@code tmp} and a copy of the distribution's {@code config}. */
    private static Path createNodeDirectory(Path home, boolean runAsOtherUser) throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toRealPath();
        if (runAsOtherUser) {
            requireTraversableByOthers(tmp);
        }
        Path directory = Files.createTempDirectory(tmp, "onceflow-elasticsearch-node-");
        try {
            for (String name : List.of("data", "logs", "tmp")) {
                Files.createDirectory(directory.resolve(name));
            }
            Path config = home.resolve("config");
            try (Stream<Path> files = Files.walk(config)) {
                for (Path file : files.toList()) {
                    Files.copy(file, directory.resolve("config").resolve(config.relativize(file).toString()),
                            StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
            if (runAsOtherUser) {
                UserPrincipal owner = directory.getFileSystem().getUserPrincipalLookupService()
                        .lookupPrincipalByName(RUN_AS_USER);
                try (Stream<Path> files = Files.walk(directory)) {
                    for (Path file : files.toList()) {
                        Files.setOwner(file, owner);
                    }
                }
            }
            return directory;
        } catch (IOException | RuntimeException e) {
            deleteQuietly(directory);
            throw e;
        }
    }

    /** The node's user must reach the distribution and its directory, both in {@code java.io.tmpdir}. */
    private static void requireTraversableByOthers(Path tmp) throws IOException {
        for (Path dir = tmp; dir != null; dir = dir.getParent()) {
            if (!Files.getPosixFilePermissions(dir).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                throw new IOException("java.io.tmpdir " + tmp + " is out of reach of the user " + RUN_AS_USER
                        + " the node runs as (" + dir + " is not traversable by others): use a java.io.tmpdir such as /tmp");
            }
        }
    }

    /**
     * Creates the user the node runs as when it does not exist yet. Other JVMs may try at the same
     * time: when useradd fails, the user existing afterwards is all that counts.
     */
    private static synchronized void ensureRunAsUserExists() throws IOException {
        if (run("id", "-u", RUN_AS_USER).status == 0) {
            return;
        }
        Result useradd = run("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", RUN_AS_USER);
        if (useradd.status != 0 && run("id", "-u", RUN_AS_USER).status != 0) {
            throw new IOException("Elasticsearch refuses to run as root, and creating the user " + RUN_AS_USER
                    + " to run it failed (useradd exit status " + useradd.status + "): " + useradd.output);
        }
    }

    private record Result(int status, String output) {
    }

    private static Result run(String... command) throws IOException {
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return new Result(child.waitFor(), output);
        } catch (InterruptedException e) {
            child.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + String.join(" ", command), e);
        }
    }

    private static Path javaHome() {
        if (Files.isExecutable(PREFERRED_JAVA_HOME.resolve("bin/java"))) {
            return PREFERRED_JAVA_HOME;
        }
        return Path.of(System.getProperty("java.home"));
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /**
     * A port free on 127.0.0.1 now, other than {@code taken}; pinned in the node's settings so that
     * it stays the same across restarts.
     */
    private static int freePort(Set<Integer> taken) throws IOException {
        while (true) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
                if (!taken.contains(socket.getLocalPort())) {
                    return socket.getLocalPort();
                }
            }
        }
    }

    private String logTail() {
        try {
            String[] lines = new String(Files.readAllBytes(logFile), StandardCharsets.UTF_8).split("\n");
            int from = Math.max(0, lines.length - LOG_TAIL_LINES);
            return "; last lines of its output " + logFile + ":\n" + String.join("\n", List.of(lines).subList(from, lines.length));
        } catch (IOException e) {
            return "; its output " + logFile + " is unreadable: " + e;
        }
    }

    private static void deleteQuietly(Path directory) {
        if (directory == null) {
            return;
        }
        try {
            ElasticsearchDistribution.deleteRecursively(directory);
        } catch (IOException | UncheckedIOException e) {
            // Left in java.io.tmpdir; a leftover directory breaks nothing.
        }
    }
}
