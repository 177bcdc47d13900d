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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job's HTTP endpoint, over real HTTP: {@code /checkpoints} is the job's checkpoint history,
 * {@code /metrics} its meters with the same counts the job reports, {@code POST /savepoint} takes a
 * savepoint (and with {@code stop=true} ends the job), wrong methods and paths are refused.
 */
@Timeout(120)
class ControlServerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    private HttpResponse<String> send(URI uri, String method) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofMinutes(1)).build(), HttpResponse.BodyHandlers.ofString());
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
            HttpResponse<String> page = send(base, "GET");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
            assertThat(page.body()).contains("id=\"duration-chart\"", "id=\"size-chart\"", "fetch(");
        } finally {
            client.cancel();
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
            URI base = server.url();
            await().atMost(Duration.ofSeconds(30)).until(() -> ids(get(base, "checkpoints"), null).size() >= 1);
            var stop = http.sendAsync(HttpRequest.newBuilder(base.resolve("savepoint?stop=true"))
                    .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofMinutes(1)).build(),
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
        } finally {
            client.cancel();
        }
    }
}
