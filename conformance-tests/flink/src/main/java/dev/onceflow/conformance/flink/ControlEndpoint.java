package dev.onceflow.conformance.flink;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.cli.ControlAccess;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;

/**
 * What {@code onceflow savepoint <dir> [--stop]} talks to, for a job on Flink: {@code POST
 * /savepoint[?stop=true]} on 127.0.0.1 and a free port, written with the pid to
 * {@code _control.json} in the job's checkpoint directory while the job runs, as Onceflow's
 * runtime does, with the same access rules ({@link ControlAccess}: the token in
 * {@code _control.token}, loopback {@code Host}, no foreign {@code Origin}). The savepoint goes next
 * to the checkpoints; the answer is its local path.
 */
final class ControlEndpoint implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long CLOSE_GRACE_MILLIS = 5_000;
    private static final long TASKS_STARTING_MILLIS = 60_000;
    /** Flink's refusal of a savepoint while tasks are still being deployed (CheckpointFailureReason.NOT_ALL_REQUIRED_TASKS_RUNNING). */
    private static final String NOT_ALL_TASKS_RUNNING = "Not all required tasks are currently running";

    private final HttpServer server;
    private final ControlAccess access;
    private final Path controlFile;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicBoolean stopRequested = new java.util.concurrent.atomic.AtomicBoolean();

    ControlEndpoint(JobClient job, Path jobDirectory) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "onceflow-control");
            t.setDaemon(true);
            return t;
        }));
        access = ControlAccess.create(CheckpointLocation.of(jobDirectory), server.getAddress().getPort());
        server.createContext("/savepoint", exchange -> {
            inFlight.incrementAndGet();
            try {
                ControlAccess.Refusal refusal = access.checkSender(exchange.getRequestHeaders());
                if (refusal == null) {
                    refusal = access.checkToken(exchange.getRequestHeaders());
                }
                if (refusal != null) {
                    respond(exchange, refusal.status(), Map.of("error", refusal.error()));
                    return;
                }
                if (!"POST".equals(exchange.getRequestMethod())) {
                    respond(exchange, 405, Map.of("error", "use POST"));
                    return;
                }
                // Exactly what `onceflow savepoint` sends: contains("stop=true") stopped the job on ?nostop=true too.
                String query = exchange.getRequestURI().getRawQuery();
                boolean stop = "stop=true".equals(query);
                if (query != null && !stop && !"stop=false".equals(query)) {
                    respond(exchange, 400, Map.of("error", "the query must be stop=true or stop=false, not '" + query + "'"));
                    return;
                }
                if (stop) {
                    stopRequested.set(true);
                }
                String pointer = savepoint(job, jobDirectory.toUri().toString(), stop);
                URI uri = URI.create(pointer);
                respond(exchange, 200, Map.of("path", "file".equals(uri.getScheme()) ? Path.of(uri).toString() : pointer));
            } catch (Exception e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                respond(exchange, 500, Map.of("error", String.valueOf(cause.getMessage())));
            } finally {
                inFlight.decrementAndGet();
            }
        });
        server.start();
        controlFile = jobDirectory.resolve("_control.json");
        Path temporary = jobDirectory.resolve("_control.json.tmp");
        Files.write(temporary, JSON.writeValueAsBytes(Map.of("pid", ProcessHandle.current().pid(),
                "port", server.getAddress().getPort())));
        Files.move(temporary, controlFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * Takes the savepoint. Flink refuses one until every task runs, and the job is submitted, with
     * this endpoint open, before its tasks are deployed and restored: that refusal is retried for
     * up to {@value #TASKS_STARTING_MILLIS} ms, every other one is the answer.
     */
    private static String savepoint(JobClient job, String directory, boolean stop) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TASKS_STARTING_MILLIS);
        while (true) {
            try {
                return (stop ? job.stopWithSavepoint(false, directory, SavepointFormatType.CANONICAL)
                        : job.triggerSavepoint(directory, SavepointFormatType.CANONICAL)).get(10, TimeUnit.MINUTES);
            } catch (ExecutionException e) {
                if (!String.valueOf(e.getMessage()).contains(NOT_ALL_TASKS_RUNNING) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private static void respond(HttpExchange exchange, int status, Object body) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.getResponseHeaders().add("X-Content-Type-Options", "nosniff");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** Whether a stop-with-savepoint was asked for: a job that then ends was stopped, not finished. */
    boolean stopRequested() {
        return stopRequested.get();
    }

    /** Lets an answer being written go out (a stop-with-savepoint ends the job before it is sent), then stops. */
    @Override
    public void close() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_GRACE_MILLIS);
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        server.stop(0);
        Files.deleteIfExists(controlFile);
        access.close();
    }
}
