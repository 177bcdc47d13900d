package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.sink.Sink;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Builds the Kafka sink for a {@link KafkaSinkMode}. The sink object holds no connections; each
 * subtask's writer opens its own clients.
 *
 * <pre>{@code
 * Sink<Event> sink = KafkaSink.builder("broker:9092", "orders")
 *         .property("security.protocol", "SSL")
 *         .build(KafkaSinkMode.EXACTLY_ONCE);
 *
 * Sink<Row> rows = KafkaSink.builder("broker:9092", "orders-{region}")
 *         .rows(schema, jsonFormat, List.of("customer"), KeyEncoding.TEXT, null)
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
    public static Builder<Event> builder(String bootstrapServers, String topic) {
        return new Builder<>(bootstrapServers, topic, b -> new EventRecords(b.topic, b.key == null ? RecordKey.KEY
                : b.key, b.idHeader));
    }

    /**
     * Collects the settings; {@link #build} validates them together.
     *
     * @param <T> the sink's records: {@link Event}s, or {@link Row}s after {@link #rows}
     */
    public static final class Builder<T> {
        private final String bootstrapServers;
        private final String topic;
        private final Function<Builder<T>, KafkaRecords<T>> records;
        private final Map<String, String> properties = new HashMap<>();
        private Duration transactionTimeout = DEFAULT_TRANSACTION_TIMEOUT;
        private String transactionalIdPrefix;
        private String controlTopic;
        private RecordKey key;
        private String idHeader;
        private KafkaWriteMode writeMode = KafkaWriteMode.APPEND;

        private Builder(String bootstrapServers, String topic, Function<Builder<T>, KafkaRecords<T>> records) {
            this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            this.topic = Objects.requireNonNull(topic, "topic");
            this.records = records;
        }

        /**
         * A builder of the same settings for a sink of rows of {@code schema}: each row's value in
         * {@code format}, its key from {@code keyFields} (none: no key), and {@code {field}} in the
         * topic standing for a field's value, and the entries of field {@code headersField} (a map of
         * strings to bytes or strings; null for none) as its headers, that field left out of the
         * value. {@link #key} does not apply to rows; {@link #idHeader} copies field {@code id}.
         *
         * @throws dev.onceflow.spi.factory.OptionException with one line naming a field that does
         *     not exist or does not fit, when the sink is built
         */
        public Builder<Row> rows(Schema schema, Format format, List<String> keyFields, KeyEncoding keyEncoding,
                String headersField) {
            Objects.requireNonNull(schema, "schema");
            Objects.requireNonNull(format, "format");
            List<String> keys = List.copyOf(keyFields);
            Objects.requireNonNull(keyEncoding, "keyEncoding");
            Builder<Row> rows = new Builder<>(bootstrapServers, topic,
                    b -> new RowRecords(b.topic, schema, format, keys, keyEncoding, headersField, b.idHeader,
                            b.writeMode));
            rows.properties.putAll(properties);
            rows.transactionTimeout = transactionTimeout;
            rows.transactionalIdPrefix = transactionalIdPrefix;
            rows.controlTopic = controlTopic;
            rows.key = key;
            rows.idHeader = idHeader;
            rows.writeMode = writeMode;
            return rows;
        }

        /**
         * {@link KafkaWriteMode#UPSERT}: rows keyed by their schema's primary key, deletes as
         * tombstones, for a changelog input (CHG-4). Rows only; the default appends.
         */
        public Builder<T> writeMode(KafkaWriteMode value) {
            this.writeMode = Objects.requireNonNull(value, "writeMode");
            return this;
        }

        /** Kafka transaction timeout; at least 1 s and at most the brokers' {@code transaction.max.timeout.ms}. */
        public Builder<T> transactionTimeout(Duration value) {
            if (value.compareTo(Duration.ofSeconds(1)) < 0 || value.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("transaction-timeout must be between 1s and " + Integer.MAX_VALUE
                        + "ms, was " + value);
            }
            this.transactionTimeout = value;
            return this;
        }

        /** Prefix of the transactional ids; default {@code <job>:<sink uid>} (names escaped, rule 2PC-9). Must be unique per sink. */
        public Builder<T> transactionalIdPrefix(String value) {
            if (value.isBlank() || value.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("transactional-id-prefix must be non-empty without spaces, was '"
                        + value + "'");
            }
            this.transactionalIdPrefix = value;
            return this;
        }

        /** Write-ahead mode: the topic of the markers; default {@code <transactional-id-prefix>-checkpoints}. */
        public Builder<T> controlTopic(String value) {
            this.controlTopic = Objects.requireNonNull(value, "controlTopic");
            return this;
        }

        /** Events only: what becomes the record key; {@link RecordKey#KEY} by default. */
        public Builder<T> key(RecordKey value) {
            this.key = Objects.requireNonNull(value, "key");
            return this;
        }

        /** Copies each event's id into this header; none by default. */
        public Builder<T> idHeader(String value) {
            this.idHeader = Objects.requireNonNull(value, "idHeader");
            return this;
        }

        /** A Kafka producer setting passed through as is (TLS, SASL, batching ...); managed ones are refused. */
        public Builder<T> property(String name, String value) {
            ProducerSettings.checkPassThroughKey(name);
            properties.put(name, Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * @throws IllegalArgumentException with a one-line message when settings do not fit the mode
         */
        public Sink<T> build(KafkaSinkMode mode) {
            if (controlTopic != null && mode != KafkaSinkMode.WRITE_AHEAD) {
                throw new IllegalArgumentException("control-topic applies to mode write-ahead only");
            }
            if (controlTopic != null && controlTopic.equals(topic)) {
                throw new IllegalArgumentException("control-topic must differ from topic '" + topic + "'");
            }
            if (controlTopic != null && controlTopic.contains("{")) {
                throw new IllegalArgumentException("control-topic is one topic; it cannot contain a {placeholder}");
            }
            KafkaRecords<T> made = records.apply(this);
            if (made instanceof EventRecords && writeMode == KafkaWriteMode.UPSERT) {
                throw new IllegalArgumentException("write-mode upsert applies to rows with a primary key, not events");
            }
            if (made instanceof RowRecords && key != null) {
                throw new IllegalArgumentException("key applies to events; for rows, name the key's fields with "
                        + "key-fields");
            }
            KafkaSinkSettings<T> settings = new KafkaSinkSettings<>(
                    new ProducerSettings(bootstrapServers, transactionTimeout, properties), made,
                    transactionalIdPrefix, controlTopic);
            return switch (mode) {
                case EXACTLY_ONCE -> new ExactlyOnceKafkaSink<>(settings);
                case WRITE_AHEAD -> new WriteAheadKafkaSink<>(settings);
                case AT_LEAST_ONCE -> new AtLeastOnceKafkaSink<>(settings);
                case NONE -> new BestEffortKafkaSink<>(settings);
            };
        }
    }
}
