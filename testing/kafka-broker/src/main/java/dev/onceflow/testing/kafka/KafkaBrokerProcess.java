package dev.onceflow.testing.kafka;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * A real single-node Kafka broker (KRaft, combined broker and controller) in a child JVM, for
 * tests that crash the broker: {@link #kill()} sends SIGKILL, {@link #restart()} starts it again
 * on the same log directory and ports, so committed data, open transactions and the transaction
 * coordinator's state survive as they would on a production broker that lost power.
 *
 * <p>Settings: those of {@link EmbeddedKafkaBroker} (listeners on {@code 127.0.0.1} only,
 * transactions on a single broker, no topic auto-creation, timed-out transactions aborted within
 * about a second of their timeout), plus a broker session timeout of 2 s: a broker restarted
 * after SIGKILL registers again only once its previous session expired
 * ({@code DUPLICATE_BROKER_REGISTRATION} until then), so the default 9 s would slow every restart.
 *
 * <p>The child runs {@code kafka.Kafka} with this JVM's class path, so the Kafka version is the
 * one the test depends on. Its output goes to {@link #logFile()}, whose tail is part of every
 * start failure. A JVM shutdown hook kills the child if the test JVM exits without
 * {@link #close()}; if the test JVM is killed, and runs no hook, the child halts itself and deletes
 * its directory ({@code OrphanGuard}).
 *
 * <pre>{@code
 * try (KafkaBrokerProcess broker = KafkaBrokerProcess.start()) {
 *     broker.createTopic("out", 2);
 *     ... clients with bootstrap.servers = broker.bootstrapServers() ...
 *     broker.kill();
 *     broker.restart();
 * }
 * }</pre>
 *
 * <p>Thread-safe: the lifecycle methods are synchronized; the others only read fixed values.
 */
public final class KafkaBrokerProcess implements KafkaTestBroker {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration READY_POLL = Duration.ofMillis(200);
    private static final int LOG_TAIL_LINES = 40;

    private final Path directory;
    private final Path logDirectory;
    private final Path serverProperties;
    private final Path logFile;
    private final int brokerPort;
    private final Thread killOnExit;
    private Process process;

    private KafkaBrokerProcess(Path directory, int brokerPort) {
        this.directory = directory;
        this.logDirectory = directory.resolve("data");
        this.serverProperties = directory.resolve("server.properties");
        this.logFile = directory.resolve("broker.log");
        this.brokerPort = brokerPort;
        this.killOnExit = new Thread(this::destroyForcibly, "kill-kafka-broker-" + brokerPort);
    }

    /**
     * Formats a temporary log directory and starts the broker in a child JVM (5–7 s). Returns once
     * the broker answers an admin request.
     *
     * @param overrides broker settings that replace or add to the defaults described above
     * @throws IllegalStateException if the broker does not start, with the tail of its log; the
     *     child is killed and the temporary directory removed
     */
    public static KafkaBrokerProcess start(Map<String, String> overrides) {
        Path dir = SingleNodeKRaft.newLogDirectory();
        KafkaBrokerProcess broker;
        try {
            int[] ports = SingleNodeKRaft.freePorts(2);
            broker = new KafkaBrokerProcess(dir, ports[0]);
            Map<String, String> settings = new HashMap<>(
                    SingleNodeKRaft.settings(broker.logDirectory, broker.brokerPort, ports[1]));
            settings.put("broker.session.timeout.ms", "2000");
            settings.put("broker.heartbeat.interval.ms", "500");
            settings.putAll(overrides);
            broker.writeConfiguration(settings);
            Files.createDirectories(broker.logDirectory);
            SingleNodeKRaft.format(broker.logDirectory);
        } catch (Exception e) {
            SingleNodeKRaft.deleteQuietly(dir);
            throw new IllegalStateException("cannot prepare the Kafka broker process: " + e, e);
        }
        Runtime.getRuntime().addShutdownHook(broker.killOnExit);
        try {
            broker.launch();
            return broker;
        } catch (RuntimeException e) {
            broker.close();
            throw e;
        }
    }

    /** {@link #start(Map)} with the default settings. */
    public static KafkaBrokerProcess start() {
        return start(Map.of());
    }

    /** {@code 127.0.0.1:<port>}: the value of {@code bootstrap.servers} for clients; the same across restarts. */
    @Override
    public String bootstrapServers() {
        return "127.0.0.1:" + brokerPort;
    }

    /** The child's standard output and error, across all its starts. */
    public Path logFile() {
        return logFile;
    }

    /** The process id of the broker's JVM, while it runs. */
    synchronized long pid() {
        if (process == null) {
            throw new IllegalStateException("the broker has not been started");
        }
        return process.pid();
    }

    /** Whether the broker's JVM is running (it may not serve requests yet, or any more). */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /**
     * Sends SIGKILL to the broker's JVM and returns once it is gone: nothing is flushed or shut down
     * cleanly, what the broker had not written to its log directory is lost. Does nothing if the
     * broker is not running.
     */
    public synchronized void kill() {
        destroyForcibly();
    }

    /**
     * Starts the broker again on the same log directory and ports, killing it first if it runs,
     * and returns once it answers an admin request (5–9 s after a SIGKILL).
     *
     * @throws IllegalStateException if it does not come back, with the tail of its log
     */
    public synchronized void restart() {
        destroyForcibly();
        launch();
    }

    /** Kills the broker and deletes its directory (data and log). */
    @Override
    public synchronized void close() {
        try {
            destroyForcibly();
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down: the hook runs anyway.
        } finally {
            SingleNodeKRaft.deleteQuietly(directory);
        }
    }

    private void writeConfiguration(Map<String, String> settings) throws IOException {
        Properties properties = new Properties();
        properties.putAll(settings);
        try (OutputStream out = Files.newOutputStream(serverProperties)) {
            properties.store(out, "single-node KRaft broker for tests");
        }
        // Warnings and errors only: a broker at INFO writes megabytes per test class.
        Files.writeString(directory.resolve("logback.xml"), """
                <configuration>
                  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
                    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{0} - %msg%n</pattern></encoder>
                  </appender>
                  <root level="WARN"><appender-ref ref="OUT"/></root>
                </configuration>
                """);
    }

    private void launch() {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-XX:+UseSerialGC",
                "-Dlogback.configurationFile=" + directory.resolve("logback.xml"),
                "-cp", System.getProperty("java.class.path"),
                OrphanGuard.class.getName(), directory.toString(), serverProperties.toString());
        try {
            Files.writeString(logFile, "=== kafka.Kafka " + serverProperties + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            // Standard input stays a pipe from this JVM: its end is how the child learns this JVM is gone.
            process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile())).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the Kafka broker process: " + e + logTail(), e);
        }
        awaitReady();
    }

    /**
     * Readiness is an answered describeCluster: the broker has registered with its controller and
     * serves requests; after a restart, clients then find the partition leaders and coordinators.
     */
    private void awaitReady() {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        Map<String, Object> settings = new HashMap<>(clientProperties());
        settings.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) READY_POLL.multipliedBy(5).toMillis());
        settings.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) READY_POLL.multipliedBy(10).toMillis());
        String lastError = "no answer yet";
        try (Admin admin = Admin.create(settings)) {
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("the Kafka broker process exited with status " + process.exitValue()
                            + " before it was ready" + logTail());
                }
                try {
                    if (!admin.describeCluster().nodes().get(READY_POLL.multipliedBy(10).toMillis(),
                            TimeUnit.MILLISECONDS).isEmpty()) {
                        return;
                    }
                } catch (Exception e) {
                    lastError = String.valueOf(e instanceof ExecutionException ? e.getCause() : e);
                }
                if (process.waitFor(READY_POLL.toMillis(), TimeUnit.MILLISECONDS)) {
                    continue; // exited: reported at the top of the loop
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            destroyForcibly();
            throw new IllegalStateException("interrupted while waiting for the Kafka broker", e);
        }
        destroyForcibly();
        throw new IllegalStateException("the Kafka broker did not answer within " + READY_TIMEOUT.toSeconds() + " s ("
                + lastError + ")" + logTail());
    }

    private void destroyForcibly() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        boolean interrupted = false;
        while (true) {
            try {
                process.waitFor();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // the process must be gone before its ports and files are reused
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            return "; last lines of " + logFile + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "; its log " + logFile + " is unreadable: " + e;
        }
    }
}
