package dev.onceflow.testing.kafka;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.RetriableException;

/**
 * A single-node Kafka broker for tests, as its clients see it: an address and a few topic
 * operations. {@link EmbeddedKafkaBroker} runs in the test's JVM; {@link KafkaBrokerProcess} runs
 * in a child JVM that a test can kill and restart.
 */
public sealed interface KafkaTestBroker extends AutoCloseable permits EmbeddedKafkaBroker, KafkaBrokerProcess {

    /** {@code 127.0.0.1:<port>}: the value of {@code bootstrap.servers} for clients. */
    String bootstrapServers();

    /** Client settings that reach this broker ({@code bootstrap.servers}), to add to a client's own. */
    default Map<String, Object> clientProperties() {
        return new HashMap<>(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
    }

    /** A new admin client of this broker; the caller closes it. */
    default Admin admin() {
        return Admin.create(clientProperties());
    }

    /**
     * Creates a topic with {@code partitions} partitions (replication factor 1) and returns once
     * the broker describes it with a leader for every partition. The controller answers the
     * creation before the broker has applied it, so a describe right after can still say "unknown
     * topic"; waiting here keeps that race out of every test.
     *
     * @throws IllegalStateException naming the topic if the broker refuses (for example, it exists)
     */
    default void createTopic(String topic, int partitions) {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!described(admin, topic, partitions)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the broker did not describe topic " + topic + " with "
                            + partitions + " led partitions within 30 s of creating it");
                }
                Thread.sleep(50);
            }
        } catch (IllegalStateException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot create topic " + topic + ": " + rootMessage(e), e);
        }
    }

    /**
     * Grows {@code topic} to {@code totalPartitions} partitions.
     *
     * @throws IllegalStateException naming the topic if the broker refuses
     */
    default void addPartitions(String topic, int totalPartitions) {
        try (Admin admin = admin()) {
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(totalPartitions))).all()
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot grow topic " + topic + " to " + totalPartitions + " partitions: "
                    + rootMessage(e), e);
        }
    }

    /** Stops the broker and deletes its data. */
    @Override
    void close();

    private static boolean described(Admin admin, String topic, int partitions) throws Exception {
        try {
            var description = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
            return description.partitions().size() == partitions
                    && description.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RetriableException) {
                return false;
            }
            throw e;
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }
}
