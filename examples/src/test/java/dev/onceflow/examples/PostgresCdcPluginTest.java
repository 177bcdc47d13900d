package dev.onceflow.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceflow.testing.postgres.EmbeddedPostgresServer;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code postgres-cdc} source as it is deployed: from the plugin directory its module's build
 * makes ({@code sources/postgres-cdc/target/plugin/postgres-cdc}), beside the bundled connectors on
 * the class path, with nothing of it on that class path. Its Debezium was built against the Kafka
 * 4.3 client library, which the plugin brings, and the bundled Kafka connectors have 4.4: on one
 * flat class path Maven resolves a single version, 4.4, which lacks a class Debezium calls.
 */
@Timeout(240)
class PostgresCdcPluginTest {

    private static final Path PLUGIN = Path.of("..", "sources", "postgres-cdc", "target", "plugin", "postgres-cdc");

    private static EmbeddedPostgresServer server;

    @TempDir
    Path dir;

    @BeforeAll
    static void startServer() throws Exception {
        server = EmbeddedPostgresServer.start(Map.of("wal_level", "logical", "max_replication_slots", "4",
                "max_wal_senders", "4"));
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void theCdcSourceRunsFromItsPluginDirectoryBesideTheKafkaConnectors() throws Exception {
        assertThat(PLUGIN.resolve("lib")).as("the plugin directory; build sources/postgres-cdc to the package phase")
                .isDirectory();
        List<String> jars;
        try (var walk = Files.walk(PLUGIN)) {
            jars = walk.filter(Files::isRegularFile).map(p -> p.getFileName().toString()).toList();
        }
        assertThat(jars).as("the plugin's jars").anyMatch(n -> n.startsWith("onceflow-source-postgres-cdc-"))
                .anyMatch(n -> n.startsWith("kafka-clients-4.3.")).noneMatch(n -> n.startsWith("onceflow-spi"));
        execute("CREATE TABLE items (id BIGINT PRIMARY KEY, name TEXT, qty INT)",
                "CREATE TABLE items_copy (id BIGINT PRIMARY KEY, name TEXT, qty INT)",
                "INSERT INTO items SELECT g, 'item ' || g, g % 7 FROM generate_series(1, 200) g");
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        Path job = dir.resolve("cdc.yaml");
        Files.writeString(job, """
                name: cdc-plugin
                source:
                  type: postgres-cdc
                  options: {url: '%1$s', user: postgres, tables: public.items}
                sink:
                  type: jdbc
                  options: {url: '%1$s', user: postgres, table: items_copy, mode: write-ahead, write-mode: upsert}
                checkpoints: {interval: 200ms, dir: '%2$s'}
                """.formatted(server.url(), dir.resolve("checkpoints")));
        // The directory as a user drops it in: a copy, not the build's.
        try (var walk = Files.walk(PLUGIN)) {
            for (Path from : walk.toList()) {
                Path to = plugins.resolve("postgres-cdc").resolve(PLUGIN.relativize(from).toString());
                if (Files.isDirectory(from)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(from, to);
                }
            }
        }

        Path log = dir.resolve("job.log");
        Process job1 = new ProcessBuilder(java(), "-cp", runtimeClassPath(), "dev.onceflow.runtime.cli.OnceflowCli",
                "run", job.toString(), "--plugins", plugins.toString(), "--progress-interval", "0")
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !job1.isAlive() || rows("items_copy").size() == 200);
            execute("UPDATE items SET qty = qty + 100 WHERE id % 3 = 0", "DELETE FROM items WHERE id % 10 = 0",
                    "INSERT INTO items VALUES (1000, 'new', 1)");
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !job1.isAlive() || rows("items_copy").equals(rows("items")));
            assertThat(job1.isAlive()).as("the job runs; log:%n%s", Files.readString(log)).isTrue();
            assertThat(rows("items_copy")).isEqualTo(rows("items")).hasSize(181);
        } finally {
            job1.destroyForcibly().waitFor();
        }
    }

    /** The bundled runtime and connectors (this test's class path) without the source under test. */
    private static String runtimeClassPath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.contains("postgres-cdc")).collect(Collectors.joining(File.pathSeparator));
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(server.url(), "postgres", "");
    }

    private static void execute(String... statements) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    /** id -> the other columns' text. */
    private static Map<Long, List<String>> rows(String table) throws SQLException {
        Map<Long, List<String>> rows = new TreeMap<>();
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT id, name, qty FROM " + table)) {
            while (result.next()) {
                rows.put(result.getLong(1), List.of(String.valueOf(result.getString(2)), result.getString(3)));
            }
        }
        return rows;
    }
}
