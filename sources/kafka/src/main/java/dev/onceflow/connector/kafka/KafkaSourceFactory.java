package dev.onceflow.connector.kafka;

import dev.onceflow.connector.kafka.common.PassThroughSettings;
import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.RowSource;
import dev.onceflow.spi.factory.SourceFactory;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.source.ReplayableSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.kafka.common.IsolationLevel;

/**
 * Makes {@link KafkaSource} usable from job files as {@code kafka}.
 *
 * <p>Kafka client settings are passed through as {@code properties.<consumer setting>} (for
 * example {@code properties.security.protocol: SSL}). The SPI accepts only declared options, so
 * one option is declared per Kafka consumer setting the source does not manage itself: a typo in a
 * setting's name is refused before anything runs, like any unknown option.
 */
public final class KafkaSourceFactory implements SourceFactory {

    private static final String OWNER = "source 'kafka'";

    /** Prefix of the options passed to the Kafka clients as they are. */
    public static final String PROPERTIES_PREFIX = PassThroughSettings.PREFIX;

    public static final Option<String> BOOTSTRAP_SERVERS = Option.stringOption("bootstrap-servers").required()
            .validate(s -> !s.isBlank(), "host:port[,host:port...]")
            .description("Kafka brokers to connect to first, host:port[,host:port...].");

    public static final Option<String> TOPICS = Option.stringOption("topics")
            .validate(s -> Arrays.stream(s.split(",")).noneMatch(String::isBlank), "topic names separated by commas")
            .description("Topics to read, separated by commas; each must exist. Set this or topic-pattern.");

    public static final Option<String> TOPIC_PATTERN = Option.stringOption("topic-pattern")
            .validate(s -> !s.isBlank(), "a Java regular expression")
            .description("Reads every topic whose whole name matches this Java regular expression, "
                    + "including topics created later (continuous mode). Set this or topics.");

    public static final Option<StartingOffsets> STARTING_OFFSETS = Option.enumOption("starting-offsets",
                    StartingOffsets.class).defaultValue(StartingOffsets.EARLIEST)
            .description("Where partitions found at the job's first start are read from; resolved to concrete "
                    + "offsets before the first checkpoint. Partitions found later start at EARLIEST.");

    public static final Option<Long> STARTING_TIMESTAMP = Option.longOption("starting-timestamp").atLeast(0L)
            .description("With starting-offsets TIMESTAMP: milliseconds since the epoch; each partition starts at "
                    + "its first record with a timestamp at or after it (its end if none).");

    public static final Option<CommittedOffsetsFallback> COMMITTED_OFFSETS_FALLBACK = Option.enumOption(
                    "committed-offsets-fallback", CommittedOffsetsFallback.class)
            .defaultValue(CommittedOffsetsFallback.EARLIEST)
            .description("With starting-offsets COMMITTED: where a partition without a committed offset starts.");

    public static final Option<Boolean> BOUNDED = Option.booleanOption("bounded").defaultValue(false)
            .description("true: read each partition up to the end offset seen at the job's first start "
                    + "(last stable offset under read_committed), then end.");

    public static final Option<Duration> DISCOVERY_INTERVAL = Option.durationOption("discovery-interval")
            .validate(d -> !d.isNegative(), "a duration such as 500ms, 10s, 5m; 0 disables discovery")
            .description("How often a continuous source looks for new partitions and topics (default 10s); "
                    + "0 disables. Not allowed with bounded.");

    public static final Option<IsolationLevel> ISOLATION_LEVEL = Option.enumOption("isolation-level",
                    IsolationLevel.class).defaultValue(IsolationLevel.READ_COMMITTED)
            .description("READ_COMMITTED: records of open or aborted transactions are never read. "
                    + "READ_UNCOMMITTED: everything written is read.");

    public static final Option<String> GROUP_ID = Option.stringOption("group-id")
            .validate(s -> !s.isBlank(), "a consumer group id")
            .description("Consumer group the positions of completed checkpoints are committed to (monitoring "
                    + "only, never used to restore); read by starting-offsets COMMITTED.");

    public static final Option<String> METADATA_FIELDS = Option.stringOption("metadata-fields")
            .validate(KafkaSourceFactory::validMetadata, "names among topic, partition, offset, timestamp, separated "
                    + "by commas")
            .description("Fields added after the record's own, in this order, from its place in Kafka: topic (string), "
                    + "partition (int), offset (long), timestamp (timestamptz, the broker's). Topic, partition and "
                    + "offset identify a record, also on replay: with all three and no primary-key declared, they are the "
                    + "rows' primary key. Not with the event format.");

    /** One option per Kafka consumer setting that may be passed through. */
    static final List<Option<String>> PROPERTIES = PassThroughSettings.options(KafkaClientProperties.passThroughKeys(),
            "consumer", "source");

    @Override
    public String identifier() {
        return "kafka";
    }

    @Override
    public String description() {
        return "Reads records (each record's value in a format: event lines by default) from Kafka topic "
                + "partitions, replayable by offset, bounded or continuous with partition discovery.";
    }

    @Override
    public List<Option<?>> options() {
        List<Option<?>> options = new ArrayList<>(List.of(BOOTSTRAP_SERVERS, TOPICS, TOPIC_PATTERN, STARTING_OFFSETS,
                STARTING_TIMESTAMP, COMMITTED_OFFSETS_FALLBACK, BOUNDED, DISCOVERY_INTERVAL, ISOLATION_LEVEL, GROUP_ID,
                METADATA_FIELDS));
        options.addAll(PROPERTIES);
        return options;
    }

    /** Event lines, as every job read before rows, unless the job file names a format. */
    @Override
    public Optional<String> defaultFormat() {
        return Optional.of("event");
    }

    /** Rows: each record's value decoded in the job's format, then the metadata fields asked for. */
    @Override
    public RowSource<?> createRowSource(Context context) {
        Format format = context.format().orElseThrow();
        OptionValues options = context.options();
        List<KafkaRecordDecoding.Metadata> metadata = metadata(options);
        if (format.identifier().equals("event") && !metadata.isEmpty()) {
            throw new OptionException(OWNER + ": option 'metadata-fields' adds fields to rows, which events cannot "
                    + "hold; name a format such as json");
        }
        if (context.wantsEvents()) {
            return SourceFactory.super.createRowSource(context);
        }
        Schema valueSchema = format.schema(context.declaredSchema(), OWNER);
        if (format.fileHeader(valueSchema).length > 0) {
            // FMT-6: a header is the first line of a file; read as a record, it would fail or be taken as data
            throw new OptionException(OWNER + ": format '" + format.identifier() + "' is set to expect a header "
                    + "line at the start of each file, but Kafka records are not files and have none; remove the "
                    + "format's header option");
        }
        KafkaRecordDecoding<Row> decoding;
        try {
            decoding = KafkaRecordDecoding.rows(format, valueSchema, metadata);
        } catch (OptionException e) {
            throw new OptionException(e.getMessage().startsWith(OWNER) ? e.getMessage() : OWNER + ": " + e.getMessage());
        }
        try {
            return RowSource.ofRows(KafkaRecordDecoding.schema(valueSchema, metadata), builder(options).build(decoding));
        } catch (IllegalArgumentException e) {
            throw new OptionException(OWNER + ": " + e.getMessage());
        }
    }

    /**
     * @throws OptionException with a one-line message when options that each parse do not fit
     *     together (both or neither of topics and topic-pattern, a missing timestamp or group id ...)
     */
    @Override
    public ReplayableSource<Event, ?, ?> createSource(OptionValues options) {
        try {
            return builder(options).build();
        } catch (IllegalArgumentException e) {
            throw new OptionException(OWNER + ": " + e.getMessage());
        }
    }

    private static KafkaSource.Builder builder(OptionValues options) {
        KafkaSource.Builder builder = KafkaSource.builder(options.get(BOOTSTRAP_SERVERS))
                .startingOffsets(options.get(STARTING_OFFSETS))
                .committedOffsetsFallback(options.get(COMMITTED_OFFSETS_FALLBACK))
                .bounded(options.get(BOUNDED))
                .isolationLevel(options.get(ISOLATION_LEVEL))
                .groupId(options.getOptional(GROUP_ID).orElse(null));
        options.getOptional(TOPICS).ifPresent(t -> builder.topics(Arrays.stream(t.split(",")).map(String::trim)
                .toList()));
        options.getOptional(TOPIC_PATTERN).ifPresent(builder::topicPattern);
        options.getOptional(STARTING_TIMESTAMP).ifPresent(builder::startingTimestamp);
        options.getOptional(DISCOVERY_INTERVAL).ifPresent(builder::discoveryInterval);
        for (Option<String> property : PROPERTIES) {
            options.getOptional(property).ifPresent(
                    value -> builder.property(property.key().substring(PROPERTIES_PREFIX.length()), value));
        }
        return builder;
    }

    private static List<KafkaRecordDecoding.Metadata> metadata(OptionValues options) {
        return options.getOptional(METADATA_FIELDS).map(list -> Arrays.stream(list.split(","))
                .map(name -> KafkaRecordDecoding.Metadata.valueOf(name.trim().toUpperCase(Locale.ROOT))).toList())
                .orElse(List.of());
    }

    private static boolean validMetadata(String list) {
        return Arrays.stream(list.split(",")).map(String::trim).allMatch(name -> Arrays.stream(
                KafkaRecordDecoding.Metadata.values()).anyMatch(m -> m.fieldName().equals(name)));
    }
}
