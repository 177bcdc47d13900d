package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.Sink;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Builds the Kafka sink for a {@link KafkaSinkMode}. The sink object holds no connections; each
 * subtask's writer opens its own clients.
 *
 * <pre>{@code
 * Sink<Event> sink = KafkaSink.builder("broker:9092", "orders")
 *         .property("security.protocol", "SSL")
 *         .build(KafkaSinkMode.EXACTLY_ONCE);
 * }</pre>
 */
public final class KafkaSink {

    /** Default {@code transaction-timeout}: the brokers' default {@code transaction.max.timeout.ms}. */
    public static final Duration DEFAULT_TRANSACTION_TIMEOUT = Duration.ofMinutes(15);

    private KafkaSink() {
    }

    /**
     * A builder for a sink writing to {@code topic}, which must exist; {@code {key}} in it stands
     * for each event's key (a topic per key, each of which must exist).
     */
    public static Builder builder(String bootstrapServers, String topic) {
        return new Builder(bootstrapServers, topic);
    }

    /** Collects the settings; {@link #build} validates them together. */
    public static final class Builder {
        private final String bootstrapServers;
        private final String topic;
        private final Map<String, String> properties = new HashMap<>();
        private Duration transactionTimeout = DEFAULT_TRANSACTION_TIMEOUT;
        private String transactionalIdPrefix;
        private String controlTopic;
        private RecordKey key = RecordKey.KEY;
        private String idHeader;

        private Builder(String bootstrapServers, String topic) {
            this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            this.topic = Objects.requireNonNull(topic, "topic");
        }

        /** Kafka transaction timeout; at least 1 s and at most the brokers' {@code transaction.max.timeout.ms}. */
        public Builder transactionTimeout(Duration value) {
            if (value.compareTo(Duration.ofSeconds(1)) < 0 || value.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("transaction-timeout must be between 1s and " + Integer.MAX_VALUE
                        + "ms, was " + value);
            }
            this.transactionTimeout = value;
            return this;
        }

        /** Prefix of the transactional ids; default {@code <job>:<sink uid>} (names escaped, rule 2PC-9). Must be unique per sink. */
        public Builder transactionalIdPrefix(String value) {
            if (value.isBlank() || value.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("transactional-id-prefix must be non-empty without spaces, was '"
                        + value + "'");
            }
            this.transactionalIdPrefix = value;
            return this;
        }

        /** Write-ahead mode: the topic of the markers; default {@code <transactional-id-prefix>-checkpoints}. */
        public Builder controlTopic(String value) {
            this.controlTopic = Objects.requireNonNull(value, "controlTopic");
            return this;
        }

        public Builder key(RecordKey value) {
            this.key = Objects.requireNonNull(value, "key");
            return this;
        }

        /** Copies each event's id into this header; none by default. */
        public Builder idHeader(String value) {
            this.idHeader = Objects.requireNonNull(value, "idHeader");
            return this;
        }

        /** A Kafka producer setting passed through as is (TLS, SASL, batching ...); managed ones are refused. */
        public Builder property(String name, String value) {
            ProducerSettings.checkPassThroughKey(name);
            properties.put(name, Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * @throws IllegalArgumentException with a one-line message when settings do not fit the mode
         */
        public Sink<Event> build(KafkaSinkMode mode) {
            if (controlTopic != null && mode != KafkaSinkMode.WRITE_AHEAD) {
                throw new IllegalArgumentException("control-topic applies to mode write-ahead only");
            }
            if (controlTopic != null && controlTopic.contains(EventRecords.KEY_PLACEHOLDER)) {
                throw new IllegalArgumentException("control-topic is one topic; it cannot contain "
                        + EventRecords.KEY_PLACEHOLDER);
            }
            if (controlTopic != null && controlTopic.equals(topic)) {
                throw new IllegalArgumentException("control-topic must differ from topic '" + topic + "'");
            }
            KafkaSinkSettings settings = new KafkaSinkSettings(
                    new ProducerSettings(bootstrapServers, transactionTimeout, properties),
                    new EventRecords(topic, key, idHeader), transactionalIdPrefix, controlTopic);
            return switch (mode) {
                case EXACTLY_ONCE -> new ExactlyOnceKafkaSink(settings);
                case WRITE_AHEAD -> new WriteAheadKafkaSink(settings);
                case AT_LEAST_ONCE -> new AtLeastOnceKafkaSink(settings);
                case NONE -> new BestEffortKafkaSink(settings);
            };
        }
    }
}
