package dev.onceflow.connector.kafka;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.source.Boundedness;
import dev.onceflow.spi.source.ReplayableSource;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceReaderContext;
import dev.onceflow.spi.source.SplitEnumerator;
import dev.onceflow.spi.source.SplitEnumeratorContext;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.IsolationLevel;

/**
 * Kafka topic partitions, replayable by offset: one split per partition, whose position is the
 * next offset to read. A {@link KafkaRecordDecoding} makes the source's records of Kafka's: events (each
 * value one {@link dev.onceflow.spi.record.EventFormat} line) by default, or rows in a format.
 *
 * <p><b>Continuous</b> (default): the enumerator looks for new partitions and (with a pattern)
 * new topics every discovery interval; those are read from their earliest offset. The source never
 * ends. <b>Bounded</b>: each partition found when the job first starts is read up to the end
 * offset seen then (the last stable offset under {@code read_committed}); the source ends when all
 * are read. The stopping offsets are part of the splits, so a restored job stops at the same place.
 *
 * <pre>{@code
 * KafkaSource source = KafkaSource.builder("broker:9092").topics(List.of("orders"))
 *         .startingOffsets(StartingOffsets.LATEST).groupId("orders-to-db").build();
 * }</pre>
 *
 * <p>Immutable; holds settings only. Connections belong to the enumerator (an admin client) and
 * the readers (one consumer each).
 */
public final class KafkaSource<T> implements ReplayableSource<T, KafkaSplit, KafkaEnumeratorState> {

    /** The discovery interval when none is set. */
    public static final Duration DEFAULT_DISCOVERY_INTERVAL = Duration.ofSeconds(10);

    private final KafkaClientProperties client;
    private final List<String> topics;
    private final Pattern topicPattern;
    private final StartingOffsets startingOffsets;
    private final Long startingTimestamp;
    private final CommittedOffsetsFallback committedFallback;
    private final boolean bounded;
    private final Duration discoveryInterval;
    private final KafkaRecordDecoding<T> decoding;

    private KafkaSource(Builder b, KafkaRecordDecoding<T> decoding) {
        this.decoding = decoding;
        this.client = new KafkaClientProperties(b.bootstrapServers, b.groupId, b.isolationLevel, b.properties);
        this.topics = b.topics;
        this.topicPattern = b.topicPattern;
        this.startingOffsets = b.startingOffsets;
        this.startingTimestamp = b.startingTimestamp;
        this.committedFallback = b.committedFallback;
        this.bounded = b.bounded;
        this.discoveryInterval = b.discoveryInterval;
    }

    /** A builder for a source reading from the brokers {@code bootstrapServers} ({@code host:port,...}). */
    public static Builder builder(String bootstrapServers) {
        return new Builder(bootstrapServers);
    }

    @Override
    public Boundedness boundedness() {
        return bounded ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SplitEnumerator<KafkaSplit, KafkaEnumeratorState> createEnumerator(
            SplitEnumeratorContext<KafkaSplit> context) {
        return new KafkaEnumerator(context, this, new KafkaEnumeratorState(List.of(), Set.of()), false);
    }

    @Override
    public SplitEnumerator<KafkaSplit, KafkaEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<KafkaSplit> context, KafkaEnumeratorState state) {
        return new KafkaEnumerator(context, this, state, true);
    }

    @Override
    public SourceReader<T, KafkaSplit> createReader(SourceReaderContext context) {
        return new KafkaSourceReader<>(context, client, decoding);
    }

    @Override
    public SimpleVersionedSerializer<KafkaSplit> splitSerializer() {
        return KafkaSplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<KafkaEnumeratorState> enumeratorStateSerializer() {
        return KafkaEnumeratorStateSerializer.INSTANCE;
    }

    KafkaClientProperties client() {
        return client;
    }

    /** The explicit topic list, or {@code null} when a pattern is used. */
    List<String> topics() {
        return topics;
    }

    /** The topic pattern (matched against whole names), or {@code null} when a list is used. */
    Pattern topicPattern() {
        return topicPattern;
    }

    StartingOffsets startingOffsets() {
        return startingOffsets;
    }

    /** Milliseconds since the epoch, with {@link StartingOffsets#TIMESTAMP}; else {@code null}. */
    Long startingTimestamp() {
        return startingTimestamp;
    }

    CommittedOffsetsFallback committedFallback() {
        return committedFallback;
    }

    boolean bounded() {
        return bounded;
    }

    /** How often the enumerator looks for new partitions; zero when it does not. */
    Duration discoveryInterval() {
        return discoveryInterval;
    }

    @Override
    public String toString() {
        return "KafkaSource{" + (topics != null ? "topics=" + topics : "topic-pattern=" + topicPattern)
                + ", starting-offsets=" + startingOffsets + (bounded ? ", bounded" : ", discovery-interval="
                + discoveryInterval) + ", " + client + "}";
    }

    /** Builds a {@link KafkaSource}; {@link #build()} checks that the settings fit together. */
    public static final class Builder {

        private final String bootstrapServers;
        private List<String> topics;
        private Pattern topicPattern;
        private StartingOffsets startingOffsets = StartingOffsets.EARLIEST;
        private Long startingTimestamp;
        private CommittedOffsetsFallback committedFallback = CommittedOffsetsFallback.EARLIEST;
        private boolean bounded;
        private Duration discoveryInterval;
        private IsolationLevel isolationLevel = IsolationLevel.READ_COMMITTED;
        private String groupId;
        private final Map<String, String> properties = new HashMap<>();

        private Builder(String bootstrapServers) {
            this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            if (bootstrapServers.isBlank()) {
                throw new IllegalArgumentException("bootstrap-servers must not be blank");
            }
        }

        /** Reads these topics (each must exist). Exclusive with {@link #topicPattern}. */
        public Builder topics(List<String> topics) {
            if (topics.isEmpty() || topics.stream().anyMatch(t -> t == null || t.isBlank())) {
                throw new IllegalArgumentException("topics must be a non-empty list of topic names, was " + topics);
            }
            this.topics = List.copyOf(topics);
            return this;
        }

        /** Reads every topic whose whole name matches {@code regex}. Exclusive with {@link #topics}. */
        public Builder topicPattern(String regex) {
            try {
                this.topicPattern = Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("topic-pattern '" + regex + "' is not a regular expression: "
                        + e.getDescription());
            }
            return this;
        }

        /** Where the partitions found at the first start are read from; {@link StartingOffsets#EARLIEST} by default. */
        public Builder startingOffsets(StartingOffsets startingOffsets) {
            this.startingOffsets = Objects.requireNonNull(startingOffsets, "startingOffsets");
            return this;
        }

        /** The timestamp (ms since the epoch) of {@link StartingOffsets#TIMESTAMP}. */
        public Builder startingTimestamp(long epochMillis) {
            if (epochMillis < 0) {
                throw new IllegalArgumentException("starting-timestamp must be >= 0, was " + epochMillis);
            }
            this.startingTimestamp = epochMillis;
            return this;
        }

        /** Where partitions without a committed offset start, with {@link StartingOffsets#COMMITTED}. */
        public Builder committedOffsetsFallback(CommittedOffsetsFallback fallback) {
            this.committedFallback = Objects.requireNonNull(fallback, "fallback");
            return this;
        }

        /** Ends at the end offsets seen when the job first starts; continuous ({@code false}) by default. */
        public Builder bounded(boolean bounded) {
            this.bounded = bounded;
            return this;
        }

        /**
         * How often a continuous source looks for new partitions and topics; zero disables discovery.
         * {@link #DEFAULT_DISCOVERY_INTERVAL} by default; a bounded source never discovers.
         */
        public Builder discoveryInterval(Duration interval) {
            if (interval.isNegative()) {
                throw new IllegalArgumentException("discovery-interval must not be negative, was " + interval);
            }
            this.discoveryInterval = interval;
            return this;
        }

        /** {@link IsolationLevel#READ_COMMITTED} (default): records of open and aborted transactions are never read. */
        public Builder isolationLevel(IsolationLevel isolationLevel) {
            this.isolationLevel = Objects.requireNonNull(isolationLevel, "isolationLevel");
            return this;
        }

        /**
         * The consumer group that offsets are committed to when checkpoints complete (for
         * monitoring lag; a restore never reads them) and that {@link StartingOffsets#COMMITTED}
         * reads. Unset by default: nothing is committed.
         */
        public Builder groupId(String groupId) {
            if (groupId != null && groupId.isBlank()) {
                throw new IllegalArgumentException("group-id must not be blank");
            }
            this.groupId = groupId;
            return this;
        }

        /** A Kafka consumer setting passed to the clients as is (security, timeouts, client id). */
        public Builder property(String key, String value) {
            KafkaClientProperties.checkPassThroughKey(key);
            properties.put(key, Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * A source of events, each record's value one event line.
         *
         * @throws IllegalArgumentException with a one-line message if the settings do not fit
         *     together (no topics, both a list and a pattern, a missing timestamp or group id)
         */
        public KafkaSource<Event> build() {
            return build(KafkaRecordDecoding.events());
        }

        /**
         * A source of the records {@code decoding} makes of Kafka records, such as rows in a format.
         *
         * @throws IllegalArgumentException as {@link #build()}
         */
        public <T> KafkaSource<T> build(KafkaRecordDecoding<T> decoding) {
            if ((topics == null) == (topicPattern == null)) {
                throw new IllegalArgumentException(topics == null
                        ? "set either 'topics' or 'topic-pattern'"
                        : "set either 'topics' or 'topic-pattern', not both");
            }
            if (startingOffsets == StartingOffsets.TIMESTAMP && startingTimestamp == null) {
                throw new IllegalArgumentException("starting-offsets TIMESTAMP needs 'starting-timestamp'");
            }
            if (startingOffsets != StartingOffsets.TIMESTAMP && startingTimestamp != null) {
                throw new IllegalArgumentException("'starting-timestamp' is only used with starting-offsets TIMESTAMP");
            }
            if (startingOffsets == StartingOffsets.COMMITTED && groupId == null) {
                throw new IllegalArgumentException("starting-offsets COMMITTED needs 'group-id'");
            }
            if (bounded && discoveryInterval != null && !discoveryInterval.isZero()) {
                throw new IllegalArgumentException("a bounded source reads the partitions present at its first start; "
                        + "'discovery-interval' cannot be set with 'bounded'");
            }
            if (discoveryInterval == null) {
                discoveryInterval = bounded ? Duration.ZERO : DEFAULT_DISCOVERY_INTERVAL;
            }
            return new KafkaSource<>(this, Objects.requireNonNull(decoding, "decoding"));
        }
    }
}
