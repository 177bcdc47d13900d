package dev.onceflow.testing.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server for tests and benchmarks: zonky's embedded binaries (from Maven
 * Central, nothing to install) on a data directory of its own and a free port, listening on
 * localhost only, user {@code postgres} without a password.
 *
 * <pre>{@code
 * try (EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start(Map.of("max_prepared_transactions", "64"))) {
 *     DriverManager.getConnection(postgres.url(), "postgres", "");
 * }
 * }</pre>
 *
 * <p>{@link #restart()} stops and starts the server on the same directory and port, so what was
 * committed or prepared survives it, as it survives a database restart in production.
 *
 * <p>No server outlives the JVM that started it. zonky starts the server with {@code pg_ctl}, which
 * detaches it, and stops it from a shutdown hook; a JVM that is SIGKILLed (a CI timeout, a killed
 * Maven) runs no hook, and the server would go on holding its port, its memory and its directory
 * until the machine reboots. So each server has a watcher: a shell whose standard input is a pipe
 * from this JVM, which nothing is written to. The kernel closes that pipe when the JVM exits,
 * however it exits; the watcher then sends the server SIGQUIT (PostgreSQL's immediate shutdown),
 * waits for it to end, and deletes the data directory. After {@link #close()} the watcher finds
 * the server stopped and only deletes what is left.
 *
 * <p>Thread-safe: the lifecycle methods are synchronized; the others read fixed values.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {

    /**
     * Waits for the end of its standard input, then stops the server on the data directory {@code $1}
     * and deletes the directory. The server's pid is the first line of {@code postmaster.pid}; since
     * a pid is reused once its process is gone (and the file outlives a server that crashed), it is
     * signalled only while it is a postgres process working in that directory, as a postmaster does.
     * It waits at most 30 s for the immediate shutdown before it kills the server.
     *
     * <p>It runs in a session of its own and ignores SIGINT, SIGHUP and SIGTERM, so what a terminal's
     * Ctrl-C or a CI timeout sends to the test's process group or tree does not end it before the
     * server: it ends when its pipe does. Only SIGKILL stops it early. One gap remains: a JVM killed
     * while {@code pg_ctl} is starting the server may leave it to write its {@code postmaster.pid}
     * after the watcher looked; PostgreSQL then shuts down by itself within a minute, when it finds
     * its lock file gone.
     */
    static final String WATCHER = """
            trap '' INT HUP TERM
            while read -r _; do :; done
            pid=$(head -n 1 "$1/postmaster.pid" 2>/dev/null)
            ours() {
                [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = postgres ] && [ "/proc/$pid/cwd" -ef "$1" ]
            }
            case "$pid" in
                ''|*[!0-9]*) ;;
                *)
                    if ours "$1"; then
                        kill -QUIT "$pid" 2>/dev/null
                        tries=0
                        while ours "$1" && [ "$tries" -lt 300 ]; do sleep 0.1; tries=$((tries + 1)); done
                        ours "$1" && kill -KILL "$pid" 2>/dev/null
                    fi
                    ;;
            esac
            rm -rf "$1"
            """;

    private static final long WATCHER_EXIT_SECONDS = 60;

    private final Path dataDirectory;
    private final Map<String, String> serverConfig;
    private final Process watcher;
    private final int port;
    private EmbeddedPostgres postgres;
    private boolean closed;

    private EmbeddedPostgresServer(Path dataDirectory, Map<String, String> serverConfig, Process watcher,
            EmbeddedPostgres postgres) {
        this.dataDirectory = dataDirectory;
        this.serverConfig = serverConfig;
        this.watcher = watcher;
        this.postgres = postgres;
        this.port = postgres.getPort();
    }

    /**
     * Initializes a fresh data directory and starts a server on it, on a free port.
     *
     * @param serverConfig settings passed to the server as {@code -c name=value} (for example
     *     {@code max_prepared_transactions}, whose default is 0); {@code listen_addresses} is always
     *     {@code localhost}
     */
    public static EmbeddedPostgresServer start(Map<String, String> serverConfig) throws IOException {
        Map<String, String> config = new LinkedHashMap<>(serverConfig);
        config.put("listen_addresses", "localhost");
        Path dataDirectory = Files.createTempDirectory("onceflow-postgres-");
        // The watcher first: a JVM killed between the two starts then leaves nothing behind either.
        Process watcher;
        try {
            watcher = new ProcessBuilder(watcherCommand(dataDirectory))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException e) {
            deleteRecursively(dataDirectory);
            throw new IOException("cannot start the watcher of an embedded PostgreSQL (setsid and sh, from "
                    + "util-linux and dash, are needed): " + e.getMessage(), e);
        }
        try {
            EmbeddedPostgres postgres = builder(dataDirectory, config, 0).start();
            return new EmbeddedPostgresServer(dataDirectory, Map.copyOf(config), watcher, postgres);
        } catch (IOException | RuntimeException e) {
            endWatcher(watcher);
            throw e;
        }
    }

    /** The command that runs {@link #WATCHER} for {@code dataDirectory}. */
    static List<String> watcherCommand(Path dataDirectory) {
        return List.of("setsid", "sh", "-c", WATCHER, "onceflow-postgres-watcher", dataDirectory.toString());
    }

    private static EmbeddedPostgres.Builder builder(Path dataDirectory, Map<String, String> config, int port) {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(dataDirectory)
                // This class deletes the directory; zonky would on every stop, restarts included.
                .setCleanDataDirectory(false);
        config.forEach(builder::setServerConfig);
        return port == 0 ? builder : builder.setPort(port);
    }

    /** The server's port on localhost; the same after {@link #restart()}. */
    public int port() {
        return port;
    }

    /** A JDBC URL of the {@code postgres} database, for user {@code postgres} with no password. */
    public String url() {
        return "jdbc:postgresql://localhost:" + port + "/postgres";
    }

    /**
     * Stops the server (PostgreSQL's fast shutdown: open sessions are ended, their transactions
     * rolled back; prepared ones are kept) and starts it again on the same directory and port.
     * zonky waits 5 s for the stop and logs a failure; the start then fails, with an exception.
     */
    public synchronized void restart() throws IOException {
        ensureOpen();
        postgres.close();
        postgres = builder(dataDirectory, serverConfig, port).start();
    }

    /**
     * The server's process id, from its {@code postmaster.pid}: empty after a clean stop, stale after
     * a crash (the file stays). For tests of this class, which read it while the server runs.
     */
    synchronized OptionalLong pid() throws IOException {
        try (Stream<String> lines = Files.lines(dataDirectory.resolve("postmaster.pid"))) {
            return lines.findFirst().map(String::strip).map(Long::parseLong).map(OptionalLong::of)
                    .orElse(OptionalLong.empty());
        } catch (NoSuchFileException e) {
            return OptionalLong.empty();
        }
    }

    Path dataDirectory() {
        return dataDirectory;
    }

    /** Stops the server and deletes its data directory. Idempotent. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            postgres.close();
        } finally {
            // The server is stopped, so the watcher only deletes the directory; if the stop failed,
            // it stops the server itself.
            endWatcher(watcher);
            deleteRecursively(dataDirectory);
        }
    }

    /** Ends the watcher's input, which is what this JVM's exit does, and waits for it to finish. */
    private static void endWatcher(Process watcher) {
        try {
            watcher.getOutputStream().close();
            if (!watcher.waitFor(WATCHER_EXIT_SECONDS, TimeUnit.SECONDS)) {
                watcher.destroyForcibly();
            }
        } catch (IOException e) {
            watcher.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            watcher.destroyForcibly();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the PostgreSQL server on port " + port + " is closed");
        }
    }

    private static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        // The watcher deletes it too; after a timeout it may still be at it, so what vanishes is fine.
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        } catch (NoSuchFileException e) {
            // gone already
        } catch (UncheckedIOException e) {
            if (!(e.getCause() instanceof NoSuchFileException)) {
                throw e.getCause();
            }
        }
    }
}
