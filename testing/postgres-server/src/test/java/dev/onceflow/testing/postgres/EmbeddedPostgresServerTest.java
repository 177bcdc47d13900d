package dev.onceflow.testing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class EmbeddedPostgresServerTest {

    @Test
    void restartKeepsCommittedRowsAndPreparedTransactionsAndCloseDeletesEverything() throws Exception {
        Path directory;
        long pid;
        int port;
        try (EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start(Map.of("max_prepared_transactions", "4"))) {
            directory = postgres.dataDirectory();
            port = postgres.port();
            try (Connection connection = DriverManager.getConnection(postgres.url(), "postgres", "");
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE t (id int)");
                statement.execute("INSERT INTO t VALUES (1), (2)");
                connection.setAutoCommit(false);
                statement.execute("INSERT INTO t VALUES (3)");
                statement.execute("PREPARE TRANSACTION 'onceflow-test'");
            }

            postgres.restart();

            assertThat(postgres.port()).isEqualTo(port);
            try (Connection connection = DriverManager.getConnection(postgres.url(), "postgres", "");
                    Statement statement = connection.createStatement()) {
                assertThat(single(statement, "SELECT gid FROM pg_prepared_xacts")).isEqualTo("onceflow-test");
                assertThat(single(statement, "SELECT count(*) FROM t")).isEqualTo("2");
                statement.execute("COMMIT PREPARED 'onceflow-test'");
                assertThat(single(statement, "SELECT count(*) FROM t")).isEqualTo("3");
            }
            pid = postgres.pid().orElseThrow();
            assertThat(running(pid)).isTrue();
        }

        assertThat(directory).doesNotExist();
        assertThat(running(pid)).as("the server, after close").isFalse();
        assertThat(accepts(port)).as("a connection to the closed server's port").isFalse();
    }

    @Test
    void aClosedServerCannotBeRestarted() throws Exception {
        EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start(Map.of());
        postgres.close();
        postgres.close(); // idempotent

        assertThatThrownBy(postgres::restart).isInstanceOf(IllegalStateException.class)
                .hasMessage("the PostgreSQL server on port " + postgres.port() + " is closed");
    }

    @Test
    void serverStopsAndItsDirectoryIsDeletedOnceItsJvmIsKilled() throws Exception {
        Process owner = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), PostgresOwner.class.getName())
                .redirectErrorStream(true).start();
        ProcessHandle server = null;
        Path directory = null;
        try {
            List<String> output = new ArrayList<>();
            BufferedReader lines = new BufferedReader(new InputStreamReader(owner.getInputStream(), StandardCharsets.UTF_8));
            String line;
            // Reading on would wait for the owner's end; it prints nothing after this line that counts.
            while (server == null && (line = lines.readLine()) != null) {
                output.add(line);
                if (line.startsWith(PostgresOwner.PREFIX)) {
                    String[] pidAndDirectory = line.substring(PostgresOwner.PREFIX.length()).split(" ", 2);
                    server = ProcessHandle.of(Long.parseLong(pidAndDirectory[0])).orElseThrow();
                    directory = Path.of(pidAndDirectory[1]);
                }
            }
            assertThat(server).as("the owner's server; its output:\n" + String.join("\n", output)).isNotNull();
            assertThat(directory.resolve("postmaster.pid")).isRegularFile();
            assertThat(running(server.pid())).isTrue();

            owner.destroyForcibly().waitFor(); // SIGKILL: no shutdown hook runs

            long pid = server.pid();
            Path gone = directory;
            // Not a child of this JVM, and perhaps not reaped yet: a zombie counts as ended.
            Awaitility.await("the orphaned server ends").atMost(Duration.ofSeconds(60)).until(() -> !running(pid));
            Awaitility.await("its data directory is deleted").atMost(Duration.ofSeconds(30))
                    .until(() -> !Files.exists(gone));
        } finally {
            owner.destroyForcibly();
            if (server != null && running(server.pid())) {
                server.destroyForcibly();
            }
        }
    }

    @Test
    void theWatcherLeavesAProcessThatIsNotPostgresAlone() throws Exception {
        Path directory = Files.createTempDirectory("onceflow-postgres-watcher-test-");
        Process sleep = new ProcessBuilder("sleep", "600").start();
        try {
            Files.writeString(directory.resolve("postmaster.pid"), sleep.pid() + "\n" + directory + "\n");
            Process watcher = new ProcessBuilder(EmbeddedPostgresServer.watcherCommand(directory)).start();

            watcher.getOutputStream().close(); // what this JVM's exit does to the pipe

            assertThat(watcher.waitFor(30, TimeUnit.SECONDS)).as("the watcher exits").isTrue();
            assertThat(watcher.exitValue()).isZero();
            assertThat(sleep.isAlive()).as("a pid in a stale postmaster.pid, now another program's").isTrue();
            assertThat(directory).doesNotExist();
        } finally {
            sleep.destroyForcibly();
            deleteIfLeft(directory);
        }
    }

    @Test
    void theWatcherOutlivesWhatAnInterruptedBuildSendsAndStillCleansUp() throws Exception {
        Path directory = Files.createTempDirectory("onceflow-postgres-watcher-test-");
        Process watcher = new ProcessBuilder(EmbeddedPostgresServer.watcherCommand(directory)).start();
        try {
            // The signals must come after the shell's trap, not during its start-up.
            long hupIntTerm = (1L << 0) | (1L << 1) | (1L << 14);
            Awaitility.await("the watcher ignores SIGHUP, SIGINT and SIGTERM").atMost(Duration.ofSeconds(10))
                    .until(() -> (ignoredSignals(watcher.pid()) & hupIntTerm) == hupIntTerm);
            for (String signal : List.of("INT", "HUP", "TERM")) {
                Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(watcher.pid())).start();
                assertThat(kill.waitFor()).as("kill -" + signal).isZero();
            }

            watcher.getOutputStream().close();

            assertThat(watcher.waitFor(30, TimeUnit.SECONDS)).as("the watcher exits").isTrue();
            assertThat(watcher.exitValue()).as("exit status: 128 + the signal, had one ended it").isZero();
            assertThat(directory).doesNotExist();
        } finally {
            watcher.destroyForcibly();
            deleteIfLeft(directory);
        }
    }

    private static String single(Statement statement, String sql) throws SQLException {
        try (ResultSet rows = statement.executeQuery(sql)) {
            assertThat(rows.next()).as(sql).isTrue();
            String value = rows.getString(1);
            assertThat(rows.next()).as(sql + ": one row").isFalse();
            return value;
        }
    }

    /** What a failed watcher test leaves: the directory and perhaps a {@code postmaster.pid}. */
    private static void deleteIfLeft(Path directory) throws IOException {
        Files.deleteIfExists(directory.resolve("postmaster.pid"));
        Files.deleteIfExists(directory);
    }

    /** The {@code SigIgn} mask of process {@code pid}: bit n - 1 for signal n. */
    private static long ignoredSignals(long pid) throws IOException {
        return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
                .filter(line -> line.startsWith("SigIgn:"))
                .mapToLong(line -> Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16))
                .findFirst().orElseThrow();
    }

    /** Whether process {@code pid} runs: it has a {@code /proc} entry and is not a zombie. */
    private static boolean running(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
