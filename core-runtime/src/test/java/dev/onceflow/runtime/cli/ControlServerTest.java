package dev.onceflow.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceflow.runtime.checkpoint.CheckpointStats;
import dev.onceflow.runtime.execution.JobClient;
import dev.onceflow.runtime.execution.JobResult;
import dev.onceflow.runtime.execution.KeyedCountJob;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job's HTTP endpoint, over real HTTP: {@code /checkpoints} is the job's checkpoint history,
 * {@code /metrics} its meters with the same counts the job reports, {@code POST /savepoint} takes a
 * savepoint (and with {@code stop=true} ends the job), one at a time; wrong methods, paths and
 * queries are refused, and every answer carries {@code nosniff}. Only the job's user's requests are
 * served: a token from an owner-only file, a loopback {@code Host}, no foreign {@code Origin}.
 */
@Timeout(120)
class ControlServerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    /** Every answer, refusals included, tells the browser not to guess its type. */
    private static HttpResponse<String> checked(HttpResponse<String> response) {
        assertThat(response.headers().firstValue("X-Content-Type-Options")).as("nosniff on %s %s (%d)",
                response.request().method(), response.uri(), response.statusCode()).hasValue("nosniff");
        return response;
    }

    /** The token of the server under test, which {@link #request} sends. */
    private String token;

    private HttpRequest.Builder request(URI uri, String method, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofMinutes(1));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return headers.length == 0 ? request : request.headers(headers);
    }

    private HttpResponse<String> send(URI uri, String method) throws IOException, InterruptedException {
        return send(request(uri, method));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return checked(http.send(request.build(), HttpResponse.BodyHandlers.ofString()));
    }

    /** What a request written by hand got: HttpClient sends no {@code Host} of the caller's choosing. */
    private record RawResponse(int status, Map<String, String> headers, String body) {

        String error() throws IOException {
            return JSON.readTree(body).get("error").asText();
        }
    }

    /** {@code method path HTTP/1.1} with exactly {@code headers}, over a socket to the server. */
    private static RawResponse raw(URI base, String method, String path, String... headers) throws IOException {
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(60_000);
            StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
            for (String header : headers) {
                request.append(header).append("\r\n");
            }
            request.append("Content-Length: 0\r\nConnection: close\r\n\r\n");
            socket.getOutputStream().write(request.toString().getBytes(StandardCharsets.US_ASCII));
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int end = response.indexOf("\r\n\r\n");
            assertThat(end).as("a whole answer to %s %s: %s", method, path, response).isPositive();
            String[] head = response.substring(0, end).split("\r\n");
            Map<String, String> answerHeaders = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            for (int i = 1; i < head.length; i++) {
                answerHeaders.put(head[i].substring(0, head[i].indexOf(':')), head[i].substring(head[i].indexOf(':') + 1).trim());
            }
            assertThat(answerHeaders.get("X-Content-Type-Options")).as("nosniff on %s %s", method, path).isEqualTo("nosniff");
            return new RawResponse(Integer.parseInt(head[0].split(" ")[1]), answerHeaders, response.substring(end + 4));
        }
    }

    /** A job that runs until the test cancels it. */
    private JobClient runningJob(String name) throws Exception {
        return new KeyedCountJob(dir.resolve("checkpoints"), dir.resolve("output"), 100_000_000)
                .rowsPerSecond(5_000).executeAsync(name);
    }

    /** Cancels the job and waits until it ended: it must not write into the test's directory while that is deleted. */
    private static void cancel(JobClient client) throws Exception {
        client.cancel();
        client.result().get(30, TimeUnit.SECONDS);
    }

    /** Neither a savepoint nor a stop came of what was refused. */
    private void assertStillRunningWithoutSavepoint(JobClient client, URI base) throws Exception {
        assertThat(ids(get(base, "checkpoints"), "SAVEPOINT")).as("savepoints taken").isEmpty();
        assertThat(client.result()).as("the job runs on").isNotDone();
    }

    private static String error(HttpResponse<String> response) throws IOException {
        return JSON.readTree(response.body()).get("error").asText();
    }

    private JsonNode get(URI base, String path) throws IOException, InterruptedException {
        HttpResponse<String> response = send(base.resolve(path), "GET");
        assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        return JSON.readTree(response.body());
    }

    private static List<Long> ids(JsonNode checkpoints, String kind) {
        List<Long> ids = new ArrayList<>();
        for (JsonNode c : checkpoints.get("checkpoints")) {
            if (c.get("completed").asBoolean() && (kind == null || c.get("kind").asText().equals(kind))) {
                ids.add(c.get("checkpointId").asLong());
            }
        }
        return ids;
    }

    /** Sum of one statistic of the meters named {@code name} whose operator tag is {@code operator}. */
    private static double sum(JsonNode metrics, String name, String operator, String statistic) {
        double sum = 0;
        for (JsonNode meter : metrics.get("meters")) {
            if (meter.get("name").asText().equals(name)
                    && (operator == null || operator.equals(meter.get("tags").path("operator").asText()))) {
                sum += meter.get("measurements").get(statistic).asDouble();
            }
        }
        return sum;
    }

    @Test
    void servesHistoryAndMetricsAndTakesSavepointsOverHttp() throws Exception {
        JobClient client = new KeyedCountJob(dir.resolve("checkpoints"), dir.resolve("output"), 100_000_000)
                .rowsPerSecond(5_000).executeAsync("served");
        try (ControlServer server = new ControlServer(client)) {
            token = server.token();
            URI base = server.url();
            await().atMost(Duration.ofSeconds(30)).until(() -> ids(get(base, "checkpoints"), null).size() >= 2);

            HttpResponse<String> savepoint = send(base.resolve("savepoint"), "POST");

            assertThat(savepoint.statusCode()).as(savepoint.body()).isEqualTo(200);
            Path savepointDir = Path.of(JSON.readTree(savepoint.body()).get("path").asText());
            assertThat(savepointDir.resolve("_metadata")).exists();
            long savepointId = Long.parseLong(savepointDir.getFileName().toString().substring("savepoint-".length()));
            JsonNode history = get(base, "checkpoints");
            assertThat(history.get("jobName").asText()).isEqualTo("served");
            assertThat(ids(history, "SAVEPOINT")).containsExactly(savepointId);
            JsonNode metrics = get(base, "metrics");
            assertThat(metrics.get("meters")).anySatisfy(meter -> {
                assertThat(meter.get("name").asText()).isEqualTo("onceflow.records.in");
                assertThat(meter.get("type").asText()).isEqualTo("COUNTER");
                assertThat(meter.get("tags").toString()).isEqualTo("{\"job\":\"served\",\"operator\":\"map\",\"subtask\":\"0\"}");
            });

            HttpResponse<String> stop = send(base.resolve("savepoint?stop=true"), "POST");

            assertThat(stop.statusCode()).as(stop.body()).isEqualTo(200);
            JobResult result = client.result().get(30, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
            JsonNode status = get(base, "status");
            assertThat(status.get("status").asText()).isEqualTo("FINISHED");
            assertThat(status.get("recordsRead").asLong()).isEqualTo(result.recordsRead());
            JsonNode finalMetrics = get(base, "metrics");
            assertThat(sum(finalMetrics, "onceflow.records.out", "events", "COUNT")).isEqualTo(result.recordsRead());
            assertThat(sum(finalMetrics, "onceflow.records.in", "count", "COUNT")).isEqualTo(result.recordsWritten());
            JsonNode finalHistory = get(base, "checkpoints");
            assertThat(ids(finalHistory, "SAVEPOINT")).hasSize(2).startsWith(savepointId);
            assertThat(ids(finalHistory, null)).as("the endpoint serves the job's history")
                    .containsExactlyElementsOf(client.checkpointHistory().entries().stream()
                            .filter(CheckpointStats::completed).map(CheckpointStats::checkpointId).toList());
            assertThat(sum(finalMetrics, "onceflow.checkpoint.duration", null, "COUNT"))
                    .as("one timing per completed checkpoint or savepoint").isEqualTo(ids(finalHistory, null).size());
            assertThat(sum(finalMetrics, "onceflow.checkpoint.duration", null, "COUNT")
                    - sum(finalMetrics, "onceflow.checkpoint.size", null, "COUNT")).isZero();
            assertThat(sum(finalMetrics, "onceflow.checkpoint.last.completed.id", null, "VALUE"))
                    .isEqualTo(ids(finalHistory, null).get(ids(finalHistory, null).size() - 1).doubleValue());

            assertThat(send(base.resolve("savepoint"), "GET").statusCode()).isEqualTo(405);
            assertThat(send(base.resolve("metrics"), "POST").statusCode()).isEqualTo(405);
            assertThat(send(base.resolve("no-such-page"), "GET").statusCode()).isEqualTo(404);
            assertThat(send(base.resolve("statusx"), "GET").statusCode()).as("paths match exactly").isEqualTo(404);
            assertThat(send(base.resolve("savepoint/x"), "POST").statusCode()).isEqualTo(404);
            HttpResponse<String> page = send(base, "GET");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
            assertThat(page.body()).contains("id=\"duration-chart\"", "id=\"size-chart\"", "fetch(");
        } finally {
            cancel(client);
        }
    }

    /**
     * The CLI closes the server as soon as the job ends, and a stop-with-savepoint ends the job
     * while its request is still being answered: that answer must go out, and close must not wait
     * longer than it takes. It used to wait 5 s whatever was in flight, on every {@code onceflow run}.
     */
    @Test
    void closeLetsTheAnswerInFlightGoOutWithoutWaitingOutItsGrace() throws Exception {
        JobClient client = new KeyedCountJob(dir.resolve("checkpoints"), dir.resolve("output"), 100_000_000)
                .rowsPerSecond(5_000).executeAsync("closing");
        try {
            ControlServer server = new ControlServer(client);
            token = server.token();
            URI base = server.url();
            Path tokenFile = Path.of(client.jobDirectory().toString()).resolve(ControlAccess.TOKEN_FILE);
            assertThat(token).matches("[A-Za-z0-9_-]{43}"); // 32 random bytes, base64url
            assertThat(tokenFile).hasContent(token);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile))).isEqualTo("rw-------");
            await().atMost(Duration.ofSeconds(30)).until(() -> ids(get(base, "checkpoints"), null).size() >= 1);
            var stop = http.sendAsync(request(base.resolve("savepoint?stop=true"), "POST").build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(client.result().get(30, TimeUnit.SECONDS).status()).isEqualTo(JobResult.Status.FINISHED);

            Path controlFile = Path.of(client.jobDirectory().toString()).resolve(ControlServer.CONTROL_FILE);
            assertThat(controlFile).exists();
            long before = System.nanoTime();
            server.close();
            Duration closing = Duration.ofNanos(System.nanoTime() - before);

            HttpResponse<String> answer = stop.get(30, TimeUnit.SECONDS);
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            assertThat(JSON.readTree(answer.body()).get("path").asText()).contains("savepoint-");
            assertThat(closing).as("close waits for the answer being written, not its whole grace")
                    .isLessThan(Duration.ofSeconds(3));
            assertThat(controlFile).doesNotExist();
            assertThat(tokenFile).doesNotExist();
        } finally {
            cancel(client);
        }
    }

    /**
     * The query is parsed into exact pairs: the server used to look for "stop=true" anywhere in it,
     * so {@code ?nostop=true} took a savepoint and stopped the job.
     */
    @Test
    void aQueryOtherThanStopTrueOrFalseIsRefusedAndDoesNotStopTheJob() throws Exception {
        JobClient client = new KeyedCountJob(dir.resolve("checkpoints"), dir.resolve("output"), 100_000_000)
                .rowsPerSecond(5_000).executeAsync("queried");
        try (ControlServer server = new ControlServer(client)) {
            token = server.token();
            URI base = server.url();
            await().atMost(Duration.ofSeconds(30)).until(() -> ids(get(base, "checkpoints"), null).size() >= 1);

            HttpResponse<String> nostop = send(base.resolve("savepoint?nostop=true"), "POST");
            HttpResponse<String> yes = send(base.resolve("savepoint?stop=yes"), "POST");
            HttpResponse<String> twice = send(base.resolve("savepoint?stop=false&stop=true"), "POST");
            HttpResponse<String> bare = send(base.resolve("savepoint?stop"), "POST");
            HttpResponse<String> status = send(base.resolve("status?stop=true"), "GET");

            assertThat(nostop.statusCode()).as(nostop.body()).isEqualTo(400);
            assertThat(error(nostop)).isEqualTo("unknown query parameter 'nostop'; accepted: stop");
            assertThat(yes.statusCode()).isEqualTo(400);
            assertThat(error(yes)).isEqualTo("query parameter 'stop' must be one of false, true, not 'yes'");
            assertThat(twice.statusCode()).isEqualTo(400);
            assertThat(error(twice)).isEqualTo("query parameter 'stop' is given twice");
            assertThat(bare.statusCode()).isEqualTo(400);
            assertThat(error(bare)).isEqualTo("query parameter 'stop' must be one of false, true");
            assertThat(status.statusCode()).isEqualTo(400);
            assertThat(error(status)).isEqualTo("unknown query parameter 'stop'; this resource takes none");
            assertThat(ids(get(base, "checkpoints"), "SAVEPOINT")).as("no savepoint was taken").isEmpty();

            HttpResponse<String> keepRunning = send(base.resolve("savepoint?stop=false"), "POST");

            assertThat(keepRunning.statusCode()).as(keepRunning.body()).isEqualTo(200);
            assertThat(ids(get(base, "checkpoints"), "SAVEPOINT")).hasSize(1);
            assertThat(client.result()).as("the job runs on").isNotDone();
            assertThat(get(base, "status").get("status").asText()).isEqualTo("RUNNING");
        } finally {
            cancel(client);
        }
    }

    /**
     * One savepoint at a time. Records are held in {@code map} while the requests arrive, so the
     * first savepoint's barrier stays behind them and it is in flight for as long as the test
     * needs: the other nine are answered 409 meanwhile. They used to trigger savepoints of their
     * own (10 at once made 8 savepoints and 2 errors).
     */
    @Test
    void concurrentSavepointRequestsTakeOneSavepointAndTheRestAreRefused() throws Exception {
        AtomicBoolean hold = new AtomicBoolean();
        AtomicInteger held = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        JobClient client = new KeyedCountJob(dir.resolve("checkpoints"), dir.resolve("output"), 100_000_000)
                .rowsPerSecond(5_000).map(event -> {
                    if (hold.get()) {
                        held.incrementAndGet();
                        release.await();
                    }
                    return event;
                }).executeAsync("one-at-a-time");
        try (ControlServer server = new ControlServer(client)) {
            token = server.token();
            URI base = server.url();
            await().atMost(Duration.ofSeconds(30)).until(() -> ids(get(base, "checkpoints"), null).size() >= 1);
            hold.set(true);
            await().atMost(Duration.ofSeconds(30)).until(() -> held.get() > 0);

            List<CompletableFuture<HttpResponse<String>>> requests = IntStream.range(0, 10)
                    .mapToObj(i -> http.sendAsync(request(base.resolve("savepoint"), "POST").build(),
                            HttpResponse.BodyHandlers.ofString()))
                    .toList();
            await("9 of 10 concurrent requests answered while the first savepoint is held in flight")
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> requests.stream().filter(CompletableFuture::isDone).count() == 9);
            release.countDown();
            List<HttpResponse<String>> responses = new ArrayList<>();
            for (CompletableFuture<HttpResponse<String>> request : requests) {
                responses.add(checked(request.get(30, TimeUnit.SECONDS)));
            }

            assertThat(responses).filteredOn(r -> r.statusCode() == 409).hasSize(9).allSatisfy(r ->
                    assertThat(error(r)).isEqualTo("a savepoint is already being taken; ask again once it completed"));
            assertThat(responses).filteredOn(r -> r.statusCode() == 200).singleElement().satisfies(r ->
                    assertThat(JSON.readTree(r.body()).get("path").asText()).contains("savepoint-"));
            assertThat(ids(get(base, "checkpoints"), "SAVEPOINT")).hasSize(1);

            HttpResponse<String> next = send(base.resolve("savepoint"), "POST");

            assertThat(next.statusCode()).as("free again once it completed: %s", next.body()).isEqualTo(200);
        } finally {
            release.countDown();
            cancel(client);
        }
    }

    /**
     * Any local user, or a page in a browser that runs there, could reach the endpoint: every
     * endpoint but the page needs the job's token in {@code Authorization: Bearer}.
     */
    @Test
    void requestsWithoutTheTokenOrWithAWrongOneAreRefused() throws Exception {
        JobClient client = runningJob("guarded");
        try (ControlServer server = new ControlServer(client)) {
            URI base = server.url();
            String tokenFile = server.tokenFile().toString();
            String sameLength = server.token().substring(1) + (server.token().charAt(0) == 'A' ? 'B' : 'A');
            await().atMost(Duration.ofSeconds(30)).until(() -> client.checkpointHistory().entries().size() >= 1);

            for (String[] endpoint : new String[][] {{"GET", "status"}, {"GET", "checkpoints"}, {"GET", "metrics"},
                    {"POST", "savepoint?stop=true"}}) {
                HttpResponse<String> none = send(request(base.resolve(endpoint[1]), endpoint[0]));
                assertThat(none.statusCode()).as("no token: %s %s", endpoint[0], endpoint[1]).isEqualTo(401);
                assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"onceflow\"");
                assertThat(error(none)).isEqualTo("this endpoint needs the job's token: Authorization: Bearer "
                        + "<the contents of " + tokenFile + ">");
                for (String wrong : List.of("Bearer wrong", "Bearer " + sameLength, "Basic " + server.token(),
                        server.token(), "Bearer " + server.token() + "x")) {
                    HttpResponse<String> refused = send(request(base.resolve(endpoint[1]), endpoint[0],
                            "Authorization", wrong));
                    assertThat(refused.statusCode()).as("%s %s with Authorization: %s", endpoint[0], endpoint[1], wrong)
                            .isEqualTo(401);
                    assertThat(error(refused)).isEqualTo("wrong token; the job's token is in " + tokenFile);
                }
            }
            HttpResponse<String> page = send(request(base, "GET"));

            assertThat(page.statusCode()).as("the page holds nothing of the job; its script sends the token")
                    .isEqualTo(200);
            token = server.token();
            assertStillRunningWithoutSavepoint(client, base);
            assertThat(send(base.resolve("status"), "GET").statusCode()).isEqualTo(200);
        } finally {
            cancel(client);
        }
    }

    /**
     * DNS rebinding: a page of {@code evil.example}, its name re-resolved to 127.0.0.1, reaches the
     * endpoint with {@code Host: evil.example}. Only loopback names with the endpoint's port are
     * served, even with the right token.
     */
    @Test
    void aForeignHostIsRefusedEvenWithTheToken() throws Exception {
        JobClient client = runningJob("rebound");
        try (ControlServer server = new ControlServer(client)) {
            token = server.token();
            URI base = server.url();
            int port = base.getPort();
            String authorization = "Authorization: Bearer " + token;
            await().atMost(Duration.ofSeconds(30)).until(() -> client.checkpointHistory().entries().size() >= 1);

            RawResponse stop = raw(base, "POST", "/savepoint?stop=true", "Host: evil.example:" + port, authorization);
            RawResponse status = raw(base, "GET", "/status", "Host: evil.example", authorization);
            RawResponse otherPort = raw(base, "GET", "/status", "Host: 127.0.0.1:" + (port == 1 ? 2 : 1), authorization);
            RawResponse page = raw(base, "GET", "/", "Host: evil.example:" + port);
            RawResponse noHost = raw(base, "GET", "/status", authorization);

            assertThat(stop.status()).as(stop.body()).isEqualTo(403);
            assertThat(stop.error()).isEqualTo("refused: Host evil.example:" + port
                    + " is not this endpoint; use http://127.0.0.1:" + port + "/");
            assertThat(status.status()).as(status.body()).isEqualTo(403);
            assertThat(otherPort.status()).as(otherPort.body()).isEqualTo(403);
            assertThat(page.status()).as(page.body()).isEqualTo(403);
            assertThat(noHost.status()).as(noHost.body()).isEqualTo(403);
            assertThat(noHost.error()).isEqualTo("refused: no Host header; use http://127.0.0.1:" + port + "/");
            assertStillRunningWithoutSavepoint(client, base);
            for (String host : List.of("127.0.0.1:" + port, "localhost:" + port, "LocalHost:" + port, "[::1]:" + port)) {
                RawResponse loopback = raw(base, "GET", "/status", "Host: " + host, authorization);
                assertThat(loopback.status()).as("Host: %s: %s", host, loopback.body()).isEqualTo(200);
            }
        } finally {
            cancel(client);
        }
    }

    /**
     * CSRF: any page in the user's browser may send requests to 127.0.0.1, and the browser names
     * its origin. Only the endpoint's own origin (or none: the CLI, curl) is served, even with the
     * right token.
     */
    @Test
    void aForeignOriginIsRefusedEvenWithTheToken() throws Exception {
        JobClient client = runningJob("cross-site");
        try (ControlServer server = new ControlServer(client)) {
            token = server.token();
            URI base = server.url();
            int port = base.getPort();
            await().atMost(Duration.ofSeconds(30)).until(() -> client.checkpointHistory().entries().size() >= 1);

            HttpResponse<String> stop = send(request(base.resolve("savepoint?stop=true"), "POST",
                    "Origin", "http://evil.example"));

            assertThat(stop.statusCode()).as(stop.body()).isEqualTo(403);
            assertThat(error(stop)).isEqualTo("refused: a page of another origin (http://evil.example) may not use this endpoint");
            for (String origin : List.of("null", "http://127.0.0.1:" + (port == 1 ? 2 : 1), "https://127.0.0.1:" + port,
                    "http://127.0.0.1.evil.example:" + port)) {
                HttpResponse<String> refused = send(request(base.resolve("status"), "GET", "Origin", origin));
                assertThat(refused.statusCode()).as("Origin: %s: %s", origin, refused.body()).isEqualTo(403);
            }
            assertStillRunningWithoutSavepoint(client, base);
            for (String origin : List.of("http://127.0.0.1:" + port, "http://localhost:" + port)) {
                HttpResponse<String> own = send(request(base.resolve("status"), "GET", "Origin", origin));
                assertThat(own.statusCode()).as("Origin: %s: %s", origin, own.body()).isEqualTo(200);
            }
        } finally {
            cancel(client);
        }
    }
}
