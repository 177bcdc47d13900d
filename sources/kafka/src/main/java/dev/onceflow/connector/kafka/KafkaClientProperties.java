package dev.onceflow.connector.kafka;

import dev.onceflow.connector.kafka.common.PassThroughSettings;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The settings of the source's Kafka clients: the ones the source manages itself and the
 * {@code properties.*} pass-through (TLS, SASL, timeouts, client id ...). Immutable.
 *
 * <p>Managed settings cannot be passed through, because the source's guarantees depend on them:
 * offsets are never committed automatically (positions live in checkpoints), and an offset out of
 * range fails the reader instead of silently jumping to another offset.
 */
final class KafkaClientProperties {

    /** Consumer settings the source sets itself; passing them through is an error. */
    static final Set<String> MANAGED = Set.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            ConsumerConfig.GROUP_ID_CONFIG,
            ConsumerConfig.ISOLATION_LEVEL_CONFIG,
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG,
            ConsumerConfig.GROUP_PROTOCOL_CONFIG,
            ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
            ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
            ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG);

    private final String bootstrapServers;
    private final String groupId;
    private final IsolationLevel isolationLevel;
    private final Map<String, String> passThrough;

    KafkaClientProperties(String bootstrapServers, String groupId, IsolationLevel isolationLevel,
            Map<String, String> passThrough) {
        this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        this.groupId = groupId;
        this.isolationLevel = Objects.requireNonNull(isolationLevel, "isolationLevel");
        this.passThrough = Map.copyOf(passThrough);
        for (String key : passThrough.keySet()) {
            checkPassThroughKey(key);
        }
    }

    /**
     * Fails with a one-line message if {@code key} is not a consumer setting or is one the source
     * manages.
     */
    static void checkPassThroughKey(String key) {
        if (MANAGED.contains(key)) {
            throw new IllegalArgumentException("Kafka setting '" + key + "' is managed by the source and cannot be "
                    + "passed through" + managedHint(key));
        }
        if (!ConsumerConfig.configNames().contains(key)) {
            throw new IllegalArgumentException("'" + key + "' is not a Kafka consumer setting");
        }
    }

    private static String managedHint(String key) {
        return switch (key) {
            case ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG -> "; use the option 'bootstrap-servers'";
            case ConsumerConfig.GROUP_ID_CONFIG -> "; use the option 'group-id'";
            case ConsumerConfig.ISOLATION_LEVEL_CONFIG -> "; use the option 'isolation-level'";
            default -> "";
        };
    }

    /** Consumer settings that pass-through keys may be: every consumer setting the source does not manage. */
    static Set<String> passThroughKeys() {
        Set<String> keys = new java.util.TreeSet<>(ConsumerConfig.configNames());
        keys.removeAll(MANAGED);
        return keys;
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    /** The consumer group id, or {@code null}. */
    String groupId() {
        return groupId;
    }

    IsolationLevel isolationLevel() {
        return isolationLevel;
    }

    /** Settings of a reader's consumer: assigned partitions, manual positions, raw bytes. */
    Map<String, Object> consumer() {
        Map<String, Object> props = new HashMap<>(passThrough);
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        if (groupId != null) {
            props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        }
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel.toString());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // Out of range (deleted by retention, or a topic recreated) fails loudly instead of
        // jumping: a jump forward loses records, a jump back duplicates them.
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return props;
    }

    /** Settings of the enumerator's admin client: the pass-through keys the admin client knows (security, timeouts). */
    Map<String, Object> admin() {
        return PassThroughSettings.admin(passThrough, bootstrapServers);
    }

    /** The settings for logs, secret values replaced by {@code [hidden]}. */
    @Override
    public String toString() {
        return "bootstrap.servers=" + bootstrapServers + ", group.id=" + groupId + ", isolation.level="
                + isolationLevel + ", properties=" + PassThroughSettings.shown(passThrough);
    }
}
