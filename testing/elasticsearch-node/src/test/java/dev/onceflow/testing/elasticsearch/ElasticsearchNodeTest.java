package dev.onceflow.testing.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * One node for the whole class (starting one takes seconds): the tests run in order, each on
 * what the previous left, and the last one closes it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ElasticsearchNodeTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DOCUMENT = "{\"name\":\"first\",\"n\":1}";

    private static ElasticsearchNode node;

    @BeforeAll
    static void startNode() {
        long started = System.nanoTime();
        node = ElasticsearchNode.start();
        System.out.printf("Elasticsearch node ready after %.1f s%n", (System.nanoTime() - started) / 1e9);
    }

    @AfterAll
    static void closeNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    @Order(1)
    void listensOnLoopbackOnlyAsAnUnprivilegedUser() {
        assertThat(node.host()).isEqualTo("127.0.0.1");
        assertThat(node.httpUri()).isEqualTo(URI.create("http://127.0.0.1:" + node.port()));
        assertThat(node.isRunning()).isTrue();
        ProcessHandle server = server(node.processes());
        if ("root".equals(System.getProperty("user.name"))) {
            assertThat(server.info().user()).as("user of the server JVM").contains(ElasticsearchNode.RUN_AS_USER);
        }
    }

    @Test
    @Order(2)
    void indexesADocumentWithAnExplicitIdAndReadsItBack() throws Exception {
        HttpResponse<String> put = send("PUT", "/idx/_doc/1?refresh=true", DOCUMENT);

        assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
        JsonNode created = JSON.readTree(put.body());
        assertThat(created.path("result").asText()).isEqualTo("created");
        assertThat(created.path("_id").asText()).isEqualTo("1");
        assertThat(created.path("_version").asLong()).isEqualTo(1);
        assertThat(created.path("forced_refresh").asBoolean()).isTrue();
        assertStoredDocument();
    }

    @Test
    @Order(3)
    void createWithAnExistingIdIsAConflictAndChangesNothing() throws Exception {
        HttpResponse<String> create = send("PUT", "/idx/_doc/1?op_type=create", "{\"name\":\"second\",\"n\":2}");

        assertThat(create.statusCode()).as(create.body()).isEqualTo(409);
        assertThat(JSON.readTree(create.body()).path("error").path("type").asText())
                .isEqualTo("version_conflict_engine_exception");
        assertStoredDocument();
    }

    @Test
    @Order(4)
    void restartKeepsTheDocumentAndThePort() throws Exception {
        int port = node.port();
        ProcessHandle serverBefore = server(node.processes());

        node.restart();

        assertThat(serverBefore.isAlive()).as("the server JVM before the restart").isFalse();
        assertThat(server(node.processes()).pid()).as("a new server JVM").isNotEqualTo(serverBefore.pid());
        assertThat(node.port()).isEqualTo(port);
        assertStoredDocument();
    }

    @Test
    @Order(5)
    void killStopsEveryProcessAndRestartRecoversTheDocument() throws Exception {
        List<ProcessHandle> processes = node.processes();
        server(processes);

        node.kill();

        assertThat(node.isRunning()).isFalse();
        assertThat(processes).as("the node's processes after kill()").noneMatch(ProcessHandle::isAlive);
        assertRefused(node.port());

        node.restart();

        assertThat(node.isRunning()).isTrue();
        assertStoredDocument();
    }

    @Test
    @Order(6)
    void launcherKeepsItsTemporaryFilesInTheNodesDirectory() throws IOException {
        Path tmp = node.logFile().getParent().resolve("tmp");
        assumeTrue(ElasticsearchNode.launcherCanTake(tmp.toString()), "the launcher keeps its default for " + tmp);
        try (Stream<Path> files = Files.list(tmp)) {
            // The launcher's JVM-flags probe; close() deletes it with the directory (next test).
            assertThat(files.map(f -> f.getFileName().toString()))
                    .as("the launcher's temporary directories in " + tmp)
                    .anyMatch(name -> name.startsWith("final-flags"));
        }
    }

    @Test
    @Order(7)
    void closeLeavesNoProcessAndNoFiles() {
        List<ProcessHandle> processes = node.processes();
        server(processes);
        Path directory = node.logFile().getParent();

        node.close();

        assertThat(processes).as("the node's processes after close()").noneMatch(ProcessHandle::isAlive);
        assertThat(ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().orElse("").contains(directory + "/")))
                .as("processes still naming the node's directory").isEmpty();
        assertThat(directory).doesNotExist();
        assertRefused(node.port());
        assertThatThrownBy(node::restart).isInstanceOf(IllegalStateException.class);
        node.close(); // again: nothing happens
        node = null;
    }

    /** The document of test 2, exactly: what was indexed once, never overwritten. */
    private static void assertStoredDocument() throws IOException, InterruptedException {
        HttpResponse<String> get = send("GET", "/idx/_doc/1", null);
        assertThat(get.statusCode()).as(get.body()).isEqualTo(200);
        JsonNode document = JSON.readTree(get.body());
        assertThat(document.path("found").asBoolean()).isTrue();
        assertThat(document.path("_version").asLong()).isEqualTo(1);
        assertThat(document.path("_source")).isEqualTo(JSON.readTree(DOCUMENT));
        HttpResponse<String> count = send("GET", "/idx/_count", null);
        assertThat(JSON.readTree(count.body()).path("count").asLong()).as(count.body()).isEqualTo(1);
    }

    private static ProcessHandle server(List<ProcessHandle> processes) {
        List<ProcessHandle> servers = processes.stream()
                .filter(p -> p.info().commandLine().orElse("").contains("org.elasticsearch.bootstrap.Elasticsearch"))
                .toList();
        assertThat(servers).as("server JVMs among " + processes).hasSize(1);
        assertThat(servers.get(0).isAlive()).isTrue();
        return servers.get(0);
    }

    private static HttpResponse<String> send(String method, String path, String json)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(node.httpUri().resolve(path)).timeout(Duration.ofSeconds(30));
        if (json == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.method(method, HttpRequest.BodyPublishers.ofString(json)).header("Content-Type", "application/json");
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void assertRefused(int port) {
        assertThatThrownBy(() -> new Socket(node.host(), port).close()).as("connecting to port " + port)
                .isInstanceOf(ConnectException.class);
    }
}
