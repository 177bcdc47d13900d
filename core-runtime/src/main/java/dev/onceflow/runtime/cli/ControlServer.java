package dev.onceflow.runtime.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.onceflow.runtime.checkpoint.CheckpointFileSystem;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.execution.JobClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A small HTTP endpoint of a running job, on 127.0.0.1 and a free port, so that
 * {@code onceflow savepoint} and a browser on the job's machine can reach it:
 * {@code POST /savepoint[?stop=true]}, {@code GET /status}, {@code GET /checkpoints},
 * {@code GET /metrics} (JSON), and {@code GET /}, a page plotting checkpoint durations and sizes
 * (documented in {@code docs/observability.md}). The port and pid are written to
 * {@code _control.json} in the job's checkpoint directory while the job runs (through its
 * {@link CheckpointFileSystem}, so this works for checkpoints on HDFS too, from the same machine),
 * and the token every endpoint but the page asks for to {@code _control.token} beside it,
 * readable by the job's user only ({@link ControlAccess}).
 */
final class ControlServer implements AutoCloseable {

    static final String CONTROL_FILE = "_control.json";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DASHBOARD = "dashboard.html";

    /** How long {@link #close} lets the answers being written go out. */
    private static final long CLOSE_GRACE_MILLIS = 5_000;

    private final HttpServer server;
    private final Map<String, Endpoint> endpoints;
    private final AtomicBoolean savepointInFlight = new AtomicBoolean();
    private final ExchangeExecutor exchanges = new ExchangeExecutor();
    private final ControlAccess access;
    private final CheckpointFileSystem fs;
    private final CheckpointLocation controlFile;

    ControlServer(JobClient client) throws IOException {
        byte[] dashboard = dashboard();
        endpoints = Map.of(
                "/", new Endpoint("GET", Map.of(), (exchange, query) ->
                        send(exchange, 200, "text/html; charset=utf-8", dashboard)),
                "/status", new Endpoint("GET", Map.of(), (exchange, query) -> respond(exchange, 200, client.progress())),
                "/checkpoints", new Endpoint("GET", Map.of(), (exchange, query) -> respond(exchange, 200,
                        Map.of("jobName", client.jobName(), "checkpoints", client.checkpointHistory().entries()))),
                "/metrics", new Endpoint("GET", Map.of(), (exchange, query) -> respond(exchange, 200,
                        Map.of("meters", MeterSnapshot.of(client.meterRegistry())))),
                "/savepoint", new Endpoint("POST", Map.of("stop", Set.of("true", "false")), (exchange, query) ->
                        savepoint(exchange, client, "true".equals(query.get("stop")))));
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        // Before _control.json names the port: whoever finds the endpoint there finds its token too.
        try {
            access = ControlAccess.create(client.jobDirectory(), server.getAddress().getPort());
        } catch (IOException | RuntimeException e) {
            server.stop(0); // bound, though not started: free the port
            throw e;
        }
        // One context for every path, matched exactly below: a context matches by prefix, and
        // "/savepoint/anything" or "/statusx" must not reach an endpoint.
        server.createContext("/", this::handle);
        server.setExecutor(exchanges);
        server.start();
        fs = CheckpointFileSystem.of(client.jobDirectory());
        controlFile = client.jobDirectory().resolve(CONTROL_FILE);
        fs.writeAtomically(controlFile, JSON.writeValueAsBytes(Map.of("pid", ProcessHandle.current().pid(),
                "port", server.getAddress().getPort())));
    }

    private void handle(HttpExchange exchange) throws IOException {
        // Every answer, refusals included: a browser must never take a JSON error for a script or a page.
        exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        ControlAccess.Refusal foreign = access.checkSender(exchange.getRequestHeaders());
        if (foreign != null) {
            respond(exchange, foreign.status(), Map.of("error", foreign.error()));
            return;
        }
        String path = exchange.getRequestURI().getPath();
        Endpoint endpoint = endpoints.get(path);
        if (endpoint == null) {
            respond(exchange, 404, Map.of("error", "no such resource; try /, /status, /checkpoints, /metrics"));
            return;
        }
        if (!endpoint.method().equals(exchange.getRequestMethod())) {
            respond(exchange, 405, Map.of("error", "use " + endpoint.method()));
            return;
        }
        // The page itself holds nothing of the job; a browser cannot send the token when it opens
        // it (the token is in the address's fragment, which stays in the browser), only its script can.
        ControlAccess.Refusal unauthorized = "/".equals(path) ? null : access.checkToken(exchange.getRequestHeaders());
        if (unauthorized != null) {
            exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"onceflow\"");
            respond(exchange, unauthorized.status(), Map.of("error", unauthorized.error()));
            return;
        }
        Map<String, String> query;
        try {
            query = parameters(exchange.getRequestURI().getRawQuery(), endpoint.parameters());
        } catch (IllegalArgumentException e) {
            respond(exchange, 400, Map.of("error", e.getMessage()));
            return;
        }
        endpoint.handler().handle(exchange, query);
    }

    private void savepoint(HttpExchange exchange, JobClient client, boolean stop) throws IOException {
        // One at a time: 10 requests at once used to make 8 savepoints and 2 errors, none of them
        // what a caller asked for, and a second stop fails anyway once the first ended the job.
        if (!savepointInFlight.compareAndSet(false, true)) {
            respond(exchange, 409, Map.of("error", "a savepoint is already being taken; ask again once it completed"));
            return;
        }
        CompletableFuture<CheckpointLocation> savepoint;
        try {
            savepoint = client.triggerSavepoint(stop);
        } catch (RuntimeException e) {
            savepointInFlight.set(false);
            throw e;
        }
        // Free again when the savepoint ends, not when its request gives up waiting (below): it may
        // still complete after that.
        savepoint.whenComplete((path, failure) -> savepointInFlight.set(false));
        try {
            CheckpointLocation path = savepoint.get(10, TimeUnit.MINUTES);
            respond(exchange, 200, Map.of("path", path.toString()));
        } catch (Exception e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            respond(exchange, 500, Map.of("error", String.valueOf(cause.getMessage())));
        }
    }

    /**
     * The query as exact {@code key=value} pairs: each key one of {@code accepted}, given once, with
     * one of the values accepted for it. Anything else is refused rather than guessed at: the
     * server used to look for {@code "stop=true"} anywhere in the query, so {@code ?nostop=true}
     * stopped the job.
     *
     * @throws IllegalArgumentException naming what is wrong, for a 400
     */
    static Map<String, String> parameters(String rawQuery, Map<String, Set<String>> accepted) {
        Map<String, String> parameters = new TreeMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return parameters;
        }
        for (String pair : rawQuery.split("&", -1)) {
            int equals = pair.indexOf('=');
            String key = decode(equals < 0 ? pair : pair.substring(0, equals));
            Set<String> values = accepted.get(key);
            if (values == null) {
                throw new IllegalArgumentException("unknown query parameter '" + key + "'; " + (accepted.isEmpty()
                        ? "this resource takes none" : "accepted: " + String.join(", ", new TreeSet<>(accepted.keySet()))));
            }
            String value = equals < 0 ? null : decode(pair.substring(equals + 1));
            if (value == null || !values.contains(value)) {
                throw new IllegalArgumentException("query parameter '" + key + "' must be one of "
                        + String.join(", ", new TreeSet<>(values)) + (value == null ? "" : ", not '" + value + "'"));
            }
            if (parameters.put(key, value) != null) {
                throw new IllegalArgumentException("query parameter '" + key + "' is given twice");
            }
        }
        return parameters;
    }

    private static String decode(String text) {
        // URLDecoder also turns '+' into a space, as forms encode it; malformed escapes throw IllegalArgumentException.
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }

    /** The address of the endpoints; the page is at its root. */
    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
    }

    /**
     * The page's address with the token in its fragment, where the page's script finds it: a
     * browser sends the fragment to no server and puts it in no {@code Referer}. For the job's own
     * user only (the CLI prints it on a terminal).
     */
    URI pageUrl() {
        return URI.create(url() + "#token=" + access.token());
    }

    /** Where the token is: printed instead of it where others may read the output. */
    CheckpointLocation tokenFile() {
        return access.tokenFile();
    }

    /** The token the endpoints ask for. */
    String token() {
        return access.token();
    }

    private static byte[] dashboard() throws IOException {
        try (InputStream in = ControlServer.class.getResourceAsStream(DASHBOARD)) {
            if (in == null) {
                throw new IOException(DASHBOARD + " is missing from the class path");
            }
            return in.readAllBytes();
        }
    }

    private static void respond(HttpExchange exchange, int status, Object body) throws IOException {
        send(exchange, status, "application/json", JSON.writeValueAsBytes(body));
    }

    private static void send(HttpExchange exchange, int status, String contentType, byte[] bytes) throws IOException {
        exchange.getResponseHeaders().add("Content-Type", contentType);
        exchange.getResponseHeaders().add("Cache-Control", "no-store");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** The port of the job running with checkpoints in {@code jobDirectory}. */
    static int portOf(CheckpointLocation jobDirectory) throws IOException {
        CheckpointLocation file = jobDirectory.resolve(CONTROL_FILE);
        byte[] bytes;
        try {
            bytes = CheckpointFileSystem.of(jobDirectory).read(file);
        } catch (NoSuchFileException e) {
            throw new IOException("no running job found: " + file + " does not exist");
        }
        Map<?, ?> control = JSON.readValue(new String(bytes, StandardCharsets.UTF_8), Map.class);
        long pid = ((Number) control.get("pid")).longValue();
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) == Boolean.FALSE) {
            throw new IOException("the job that wrote " + file + " (pid " + pid + ") is no longer running");
        }
        return ((Number) control.get("port")).intValue();
    }

    /**
     * Stops serving. A stop-with-savepoint ends the job while its request is still being answered,
     * so this first waits, up to {@value #CLOSE_GRACE_MILLIS} ms, for the exchanges being handled.
     * It does not use {@code HttpServer.stop(delay)} for that: on JDK 17 it always waits the whole
     * delay, even with nothing in flight, and every {@code onceflow run} took 5 s longer to exit.
     */
    @Override
    public void close() {
        try {
            exchanges.awaitIdle(CLOSE_GRACE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        server.stop(0);
        exchanges.shutdown();
        try {
            fs.deleteRecursively(controlFile);
        } catch (IOException ignored) {
            // a stale file is detected by its pid
        }
        access.close();
    }

    /** A resource: the one method it takes, the query parameters it accepts, and its answer. */
    private record Endpoint(String method, Map<String, Set<String>> parameters, Handler handler) {
    }

    @FunctionalInterface
    private interface Handler {
        void handle(HttpExchange exchange, Map<String, String> query) throws IOException;
    }

    /** Runs the exchanges on daemon threads and counts those being handled, for {@link #close}. */
    private static final class ExchangeExecutor implements Executor {

        private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "onceflow-control");
            t.setDaemon(true);
            return t;
        });
        /** Exchanges handed over and not yet handled; guarded by {@code this}. */
        private int running;

        @Override
        public void execute(Runnable exchange) {
            synchronized (this) {
                running++;
            }
            try {
                threads.execute(() -> {
                    try {
                        exchange.run();
                    } finally {
                        finished();
                    }
                });
            } catch (RuntimeException e) {
                finished();
                throw e;
            }
        }

        private synchronized void finished() {
            running--;
            notifyAll();
        }

        /** Waits until no exchange is being handled, or {@code millis} have passed. */
        synchronized void awaitIdle(long millis) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            while (running > 0) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    return;
                }
                wait(left);
            }
        }

        void shutdown() {
            threads.shutdown();
        }
    }
}
