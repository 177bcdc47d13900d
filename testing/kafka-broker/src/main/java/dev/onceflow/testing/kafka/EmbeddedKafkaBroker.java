package dev.onceflow.testing.kafka;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.utils.Time;

/**
 * A real single-node Kafka broker (KRaft, combined broker and controller) running in the calling
 * JVM, for tests. It listens on two free ports of {@code 127.0.0.1}, so clients in other JVMs on
 * the machine (the conformance suite's child jobs) reach it through {@link #bootstrapServers()}.
 *
 * <p>Settings: everything a single broker needs for transactions and consumer groups (internal
 * topics with replication factor 1, no initial rebalance delay);
 * {@code auto.create.topics.enable=false}, so a client that names a topic nobody created fails
 * instead of silently reading an empty new topic; and a check for timed-out transactions every
 * second, so a dead producer's transaction is aborted within about a second of its timeout. The
 * log directory is a fresh temporary directory, deleted by {@link #close()}.
 *
 * <pre>{@code
 * try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
 *     broker.createTopic("in", 3);
 *     ... clients with bootstrap.servers = broker.bootstrapServers() ...
 * }
 * }</pre>
 *
 * <p>Not a fault-injection tool: for a broker that can be killed and restarted with its data, use
 * {@link KafkaBrokerProcess}. Thread-safe: the broker runs on its own threads; the methods here may be called from any thread.
 */
public final class EmbeddedKafkaBroker implements KafkaTestBroker {

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
        return SingleNodeKRaft.startWithRetries(() -> startOnce(overrides));
    }

    private static EmbeddedKafkaBroker startOnce(Map<String, String> overrides) {
        Path dir = SingleNodeKRaft.newLogDirectory();
        KafkaRaftServer server = null;
        try {
            int[] ports = SingleNodeKRaft.freePorts(2);
            Properties props = new Properties();
            props.putAll(SingleNodeKRaft.settings(dir, ports[0], ports[1]));
            props.putAll(overrides);
            KafkaConfig config = new KafkaConfig(props);
            SingleNodeKRaft.format(dir);
            server = new KafkaRaftServer(config, Time.SYSTEM);
            server.startup();
            return new EmbeddedKafkaBroker(dir, ports[0], server);
        } catch (Exception e) {
            if (server != null) {
                try {
                    server.shutdown();
                    server.awaitShutdown();
                } catch (RuntimeException ignored) {
                    // it did not start; what is left of it goes with the JVM
                }
            }
            SingleNodeKRaft.deleteQuietly(dir);
            throw new IllegalStateException("the embedded Kafka broker did not start: " + e, e);
        }
    }

    /** {@link #start(Map)} with the default settings. */
    public static EmbeddedKafkaBroker start() {
        return start(Map.of());
    }

    /** {@code 127.0.0.1:<port>}: the value of {@code bootstrap.servers} for clients. */
    @Override
    public String bootstrapServers() {
        return "127.0.0.1:" + brokerPort;
    }

    /** Stops the broker, waits until its threads are gone and deletes its log directory. */
    @Override
    public void close() {
        try {
            server.shutdown();
            server.awaitShutdown();
        } finally {
            SingleNodeKRaft.deleteQuietly(logDirectory);
        }
    }
}
