package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.factory.Option;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.InvalidTxnTimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The settings of the sink's Kafka clients: the ones the sink manages itself and the
 * {@code properties.*} pass-through (TLS, SASL, batching, compression, partitioner ...). Immutable.
 *
 * <p>Managed settings cannot be passed through, because the sink's guarantees depend on them:
 * transactional ids come from the sink's pool, idempotence and {@code acks=all} are always on, and
 * the transaction timeout is an option of its own that the sink validates.
 */
final class ProducerSettings {

    /** Producer settings the sink sets itself; passing them through is an error. */
    static final Set<String> MANAGED = Set.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            ProducerConfig.TRANSACTIONAL_ID_CONFIG,
            ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            ProducerConfig.ACKS_CONFIG,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            "transaction.two.phase.commit.enable");

    /** Keys whose values are never logged: passwords, keys, JAAS configurations, tokens. */
    private static final Pattern SECRET = Pattern.compile("password|secret|jaas|token|credential|ssl\\.key|keystore\\.key"
            + "|truststore\\.certificates|keystore\\.certificate");

    private final String bootstrapServers;
    private final Duration transactionTimeout;
    private final Map<String, String> passThrough;

    ProducerSettings(String bootstrapServers, Duration transactionTimeout, Map<String, String> passThrough) {
        this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        this.transactionTimeout = Objects.requireNonNull(transactionTimeout, "transactionTimeout");
        this.passThrough = Map.copyOf(passThrough);
        for (String key : passThrough.keySet()) {
            checkPassThroughKey(key);
        }
    }

    /** Fails with a one-line message if {@code key} is not a producer setting or is one the sink manages. */
    static void checkPassThroughKey(String key) {
        if (MANAGED.contains(key)) {
            throw new IllegalArgumentException("Kafka setting '" + key + "' is managed by the sink and cannot be "
                    + "passed through" + (key.equals(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG)
                            ? "; use the option 'transaction-timeout'"
                            : key.equals(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG) ? "; use the option 'bootstrap-servers'"
                            : key.equals(ProducerConfig.TRANSACTIONAL_ID_CONFIG)
                                    ? "; use the option 'transactional-id-prefix'" : ""));
        }
        if (!ProducerConfig.configNames().contains(key)) {
            throw new IllegalArgumentException("'" + key + "' is not a Kafka producer setting");
        }
    }

    /** Producer settings that pass-through keys may be: every producer setting the sink does not manage. */
    static Set<String> passThroughKeys() {
        Set<String> keys = new TreeSet<>(ProducerConfig.configNames());
        keys.removeAll(MANAGED);
        return keys;
    }

    /** Whether the value of {@code key} must never be logged or echoed. */
    static boolean isSecret(String key) {
        return SECRET.matcher(key.toLowerCase(Locale.ROOT)).find();
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    Duration transactionTimeout() {
        return transactionTimeout;
    }

    /** A transactional producer's settings: idempotent, {@code acks=all}, raw bytes. */
    Map<String, Object> transactionalProducer(String transactionalId) {
        Map<String, Object> props = idempotentProducer();
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int) transactionTimeout.toMillis());
        return props;
    }

    /**
     * A transactional producer for {@code transactionalId}, initialized: {@code initTransactions()}
     * fences earlier producers of the id and ends their open transaction.
     *
     * @throws IllegalArgumentException saying what to change when the brokers refuse the transaction timeout
     */
    KafkaProducer<byte[], byte[]> openTransactional(String transactionalId) {
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(transactionalProducer(transactionalId));
        try {
            producer.initTransactions();
            return producer;
        } catch (InvalidTxnTimeoutException e) {
            producer.close(Duration.ZERO);
            throw new IllegalArgumentException("transaction-timeout " + Option.asText(transactionTimeout)
                    + " is more than the brokers allow (transaction.max.timeout.ms): lower transaction-timeout "
                    + "or raise transaction.max.timeout.ms on the brokers", e);
        } catch (RuntimeException e) {
            producer.close(Duration.ZERO);
            throw e;
        }
    }

    /** A producer without transactions, still idempotent with {@code acks=all}. */
    Map<String, Object> idempotentProducer() {
        Map<String, Object> props = new HashMap<>(passThrough);
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return props;
    }

    /** An admin client's settings: the pass-through keys an admin client knows (security, timeouts). */
    Map<String, Object> admin() {
        Map<String, Object> props = new HashMap<>();
        passThrough.forEach((key, value) -> {
            if (AdminClientConfig.configNames().contains(key)) {
                props.put(key, value);
            }
        });
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return props;
    }

    /** A {@code read_committed} consumer without a group, for reading the control topic. */
    Map<String, Object> committedReader() {
        Map<String, Object> props = new HashMap<>();
        passThrough.forEach((key, value) -> {
            if (AdminClientConfig.configNames().contains(key) && ConsumerConfig.configNames().contains(key)) {
                props.put(key, value);
            }
        });
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return props;
    }

    /** The settings for logs, secret values replaced by {@code [hidden]}. */
    @Override
    public String toString() {
        Map<String, String> shown = new TreeMap<>();
        passThrough.forEach((key, value) -> shown.put(key, isSecret(key) ? "[hidden]" : value));
        return "bootstrap.servers=" + bootstrapServers + ", transaction.timeout.ms=" + transactionTimeout.toMillis()
                + ", properties=" + shown;
    }
}
