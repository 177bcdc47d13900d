package dev.onceflow.testing.mariadb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real MariaDB server for tests: the machine's {@code mariadbd} (Debian's {@code mariadb-server}
 * package; {@code bin/test} installs it when missing), on a data directory of its own and a free
 * port on 127.0.0.1, with a database {@code onceflow}. Access control is off (tests only).
 *
 * <pre>{@code
 * try (MariaDbServer server = MariaDbServer.start()) {
 *     DriverManager.getConnection(server.url(), "root", "");
 * }
 * }</pre>
 *
 * <p>When the binaries are missing it fails, naming the package to install: a test that cannot
 * reach its system must fail, never skip.
 */
public final class MariaDbServer implements AutoCloseable {

    /** The database the server is started with; {@link #url()} points at it. */
    public static final String DATABASE = "onceflow";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final Path dataDirectory;
    private final int port;
    private Process process;

    private MariaDbServer(Path dataDirectory, int port) {
        this.dataDirectory = dataDirectory;
        this.port = port;
    }

    /** Initializes a fresh data directory and starts the server on it. */
    public static MariaDbServer start() throws IOException, InterruptedException, SQLException {
        Path dataDirectory = Files.createTempDirectory("onceflow-mariadb-");
        MariaDbServer server = new MariaDbServer(dataDirectory, freePort());
        try {
            server.initialize();
            server.launch();
            try (Connection connection = DriverManager.getConnection(server.serverUrl(), "root", "");
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE DATABASE IF NOT EXISTS " + DATABASE + " CHARACTER SET utf8mb4");
            }
            return server;
        } catch (IOException | InterruptedException | SQLException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** The JDBC URL of database {@value #DATABASE}; user {@code root}, empty password. */
    public String url() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + DATABASE;
    }

    public int port() {
        return port;
    }

    /** Connects to {@value #DATABASE} as root. */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), "root", "");
    }

    /**
     * Stops the server hard ({@code SIGKILL}, as a crash) and starts it again on the same data
     * directory and port; InnoDB recovers prepared XA transactions.
     */
    public void crashAndRestart() throws IOException, InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
        launch();
    }

    private void initialize() throws IOException, InterruptedException {
        Path installDb = binary("mariadb-install-db", "/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db");
        List<String> command = new ArrayList<>(List.of(installDb.toString(), "--no-defaults",
                "--datadir=" + dataDirectory.resolve("data"), "--auth-root-authentication-method=normal",
                "--skip-test-db"));
        if (isRoot()) {
            command.add("--user=root");
        }
        Path log = dataDirectory.resolve("install.log");
        Process install = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!install.waitFor(120, TimeUnit.SECONDS) || install.exitValue() != 0) {
            install.destroyForcibly();
            throw new IOException("mariadb-install-db failed; its output:\n" + Files.readString(log));
        }
    }

    private void launch() throws IOException, InterruptedException {
        Path mariadbd = binary("mariadbd", "/usr/sbin/mariadbd", "/usr/sbin/mysqld");
        List<String> command = new ArrayList<>(List.of(mariadbd.toString(), "--no-defaults",
                "--datadir=" + dataDirectory.resolve("data"), "--port=" + port, "--bind-address=127.0.0.1",
                "--socket=" + dataDirectory.resolve("mariadb.sock"), "--pid-file=" + dataDirectory.resolve("mariadb.pid"),
                "--log-error=" + dataDirectory.resolve("error.log"), "--skip-grant-tables", "--skip-name-resolve",
                "--innodb-buffer-pool-size=64M", "--max-connections=200"));
        if (isRoot()) {
            command.add("--user=root");
        }
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dataDirectory.resolve("stdout.log").toFile())).start();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            try (Connection connection = DriverManager.getConnection(serverUrl(), "root", "")) {
                return;
            } catch (SQLException notYet) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    process.destroyForcibly();
                    throw new IOException("mariadbd did not accept connections on 127.0.0.1:" + port + " within "
                            + START_TIMEOUT.toSeconds() + " s (" + (process.isAlive() ? "still starting" : "exited")
                            + "); its error log:\n" + readQuietly(dataDirectory.resolve("error.log")));
                }
                Thread.sleep(100); // polling the port; there is no event to wait on
            }
        }
    }

    private String serverUrl() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/";
    }

    private static Path binary(String name, String... candidates) {
        for (String candidate : candidates) {
            Path path = Path.of(candidate);
            if (Files.isExecutable(path)) {
                return path;
            }
        }
        throw new IllegalStateException(name + " not found (looked in " + String.join(", ", candidates)
                + "): install MariaDB, e.g. apt-get install mariadb-server (bin/test does it)");
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static String readQuietly(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "(none)";
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** Stops the server and deletes its data directory. */
    @Override
    public void close() {
        if (process != null) {
            process.destroy();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        try (Stream<Path> files = Files.walk(dataDirectory)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + dataDirectory, e);
        }
    }
}
