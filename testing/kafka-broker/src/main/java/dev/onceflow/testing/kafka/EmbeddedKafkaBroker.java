package dev.onceflow.testing.kafka;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;

/**
 * A real single-node Kafka broker (KRaft, combined broker and controller) running in the calling
 * JVM, for tests. It listens on two free ports of {@code 127.0.0.1}, so clients in other JVMs on
 * the machine (the conformance suite's child jobs) reach it through {@link #bootstrapServers()}.
 *
 * <p>Settings: everything a single broker needs for transactions and consumer groups (internal
 * topics with replication factor 1, no initial rebalance delay) and
 * {@code auto.create.topics.enable=false}, so a client that names a topic nobody created fails
 * instead of silently reading an empty new topic. The log directory is a fresh temporary
 * directory, deleted by {@link #close()}.
 *
 * <pre>{@code
 * try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
 *     broker.createTopic("in", 3);
 *     ... clients with bootstrap.servers = broker.bootstrapServers() ...
 * }
 * }</pre>
 *
 * <p>Not a fault-injection tool: the broker cannot be killed and restarted with its data (yet).
 * Thread-safe: the broker runs on its own threads; the methods here may be called from any thread.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {

    private static final String CONTROLLER_LISTENER = "CONTROLLER";
    private static final long ADMIN_TIMEOUT_SECONDS = 30;

    private final Path logDirectory;
    private final int brokerPort;
    private final KafkaRaftServer server;

    private EmbeddedKafkaBroker(Path logDirectory, int brokerPort, KafkaRaftServer server) {
        this.logDirectory = logDirectory;
        this.brokerPort = brokerPort;
        this.server = server;
    }

    /**
     * Formats a temporary log directory and starts the broker (about 3 s). Returns once the broker
     * serves requests.
     *
     * @param overrides broker settings that replace or add to the defaults described above
     * @throws IllegalStateException if the broker does not start; the temporary directory is removed
     */
    public static EmbeddedKafkaBroker start(Map<String, String> overrides) {
        Path dir;
        try {
            dir = Files.createTempDirectory("onceflow-kafka-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the broker's log directory", e);
        }
        try {
            int brokerPort = freePort();
            int controllerPort = freePort();
            Properties props = new Properties();
            props.putAll(defaults(dir, brokerPort, controllerPort));
            props.putAll(overrides);
            KafkaConfig config = new KafkaConfig(props);
            format(dir);
            KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
            server.startup();
            return new EmbeddedKafkaBroker(dir, brokerPort, server);
        } catch (Exception e) {
            deleteQuietly(dir);
            throw new IllegalStateException("the embedded Kafka broker did not start: " + e, e);
        }
    }

    /** {@link #start(Map)} with the default settings. */
    public static EmbeddedKafkaBroker start() {
        return start(Map.of());
    }

    /** {@code 127.0.0.1:<port>}: the value of {@code bootstrap.servers} for clients. */
    public String bootstrapServers() {
        return "127.0.0.1:" + brokerPort;
    }

    /** Client settings that reach this broker ({@code bootstrap.servers}), to add to a client's own. */
    public Map<String, Object> clientProperties() {
        Map<String, Object> props = new HashMap<>();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return props;
    }

    /** A new admin client of this broker; the caller closes it. */
    public Admin admin() {
        return Admin.create(clientProperties());
    }

    /**
     * Creates a topic with {@code partitions} partitions (replication factor 1) and returns once
     * the broker has created it.
     *
     * @throws IllegalStateException naming the topic if the broker refuses (for example, it exists)
     */
    public void createTopic(String topic, int partitions) {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all()
                    .get(ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot create topic " + topic + ": " + rootMessage(e), e);
        }
    }

    /** Grows {@code topic} to {@code totalPartitions} partitions. */
    public void addPartitions(String topic, int totalPartitions) {
        try (Admin admin = admin()) {
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(totalPartitions))).all()
                    .get(ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot grow topic " + topic + " to " + totalPartitions + " partitions: "
                    + rootMessage(e), e);
        }
    }

    /** Stops the broker, waits until its threads are gone and deletes its log directory. */
    @Override
    public void close() {
        try {
            server.shutdown();
            server.awaitShutdown();
        } finally {
            deleteQuietly(logDirectory);
        }
    }

    private static Map<String, String> defaults(Path dir, int brokerPort, int controllerPort) {
        Map<String, String> p = new HashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + "," + CONTROLLER_LISTENER + "://127.0.0.1:"
                + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        p.put("controller.listener.names", CONTROLLER_LISTENER);
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", dir.toString());
        p.put("auto.create.topics.enable", "false");
        p.put("num.partitions", "1");
        // One broker: every internal topic with replication factor 1, or transactions time out
        // in InitProducerId and group coordination never becomes available.
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        return p;
    }

    /** Writes meta.properties and the bootstrap metadata, as {@code kafka-storage.sh format} does. */
    private static void format(Path dir) throws Exception {
        new Formatter()
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                .setNodeId(1)
                .setClusterId(Uuid.randomUuid().toString())
                .setDirectories(List.of(dir.toString()))
                .setMetadataLogDirectory(dir.toString())
                .setControllerListenerName(CONTROLLER_LISTENER)
                .run();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // A leftover temporary directory is not worth failing a test for.
        }
    }
}
