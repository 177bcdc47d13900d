package dev.onceflow.testing.kafka;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.metadata.storage.Formatter;

/**
 * What a single-node KRaft broker for tests is, in the calling JVM ({@link EmbeddedKafkaBroker}) or
 * in a child JVM ({@link KafkaBrokerProcess}): its settings and its formatted log directory, so
 * both brokers behave the same.
 */
final class SingleNodeKRaft {

    static final String CONTROLLER_LISTENER = "CONTROLLER";

    private SingleNodeKRaft() {
    }

    /**
     * Broker and controller in one node on {@code 127.0.0.1}, ready for transactions and consumer
     * groups, with {@code auto.create.topics.enable=false}.
     */
    static Map<String, String> settings(Path dir, int brokerPort, int controllerPort) {
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
        // The broker looks for timed-out transactions every 10 s by default: tests of a dead
        // producer's transaction would wait that long for the abort that unblocks read_committed readers.
        p.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
        return p;
    }

    /** A new empty temporary directory for a broker's logs. */
    static Path newLogDirectory() {
        try {
            return Files.createTempDirectory("onceflow-kafka-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the broker's log directory", e);
        }
    }

    /** Writes meta.properties and the bootstrap metadata, as {@code kafka-storage.sh format} does. */
    static void format(Path dir) throws Exception {
        new Formatter()
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                .setNodeId(1)
                .setClusterId(Uuid.randomUuid().toString())
                .setDirectories(List.of(dir.toString()))
                .setMetadataLogDirectory(dir.toString())
                .setControllerListenerName(CONTROLLER_LISTENER)
                .run();
    }

    /**
     * {@code count} distinct ports free on 127.0.0.1 now. The sockets that found them are held open
     * until all are found, so the system cannot hand out one port twice (a broker given the same
     * port for its client and controller listeners refuses to start). Another process may still
     * take a port before the broker binds it; {@link #startWithRetries} covers that.
     */
    static int[] freePorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket socket : sockets) {
                socket.close();
            }
        }
    }

    /** Starts a broker, or what {@code attempt} starts; a start that fails is tried again, at most three times in all. */
    static <T> T startWithRetries(StartAttempt<T> attempt) {
        IllegalStateException failure = null;
        for (int i = 0; i < 3; i++) {
            try {
                return attempt.start();
            } catch (IllegalStateException e) {
                // The likely cause is a port taken between choosing it and binding it.
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        throw failure;
    }

    /** One try at starting a broker. */
    @FunctionalInterface
    interface StartAttempt<T> {
        T start();
    }

    static void deleteQuietly(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // A leftover temporary directory is not worth failing a test for.
        }
    }
}
