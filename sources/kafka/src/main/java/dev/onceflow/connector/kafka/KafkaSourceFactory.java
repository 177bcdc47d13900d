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
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
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
            .validate(KafkaSourceFactory::validMetadata, "names among topic, partition, offset, timestamp, headers, "
                    + "separated by commas")
            .description("Fields added after the record's own, in this order, from its place in Kafka: topic (string), "
                    + "partition (int), offset (long), timestamp (timestamptz, the broker's), headers (map<string, "
                    + "bytes>; of headers with the same key, the last). Topic, partition and offset identify a record, "
                    + "also on replay: with all three and no primary-key declared, they are the rows' primary key. "
                    + "Not with the event format.");

    public static final Option<String> KEY_FORMAT = Option.stringOption("key-format")
            .validate(s -> !s.isBlank(), "a format's name, such as json, csv, raw or avro")
            .description("The format of each record's key, with its default options; the fields it holds are "
                    + "key-fields. Not with the event format.");

    public static final Option<String> KEY_FIELDS = Option.stringOption("key-fields")
            .validate(s -> Arrays.stream(s.split(",")).noneMatch(String::isBlank), "field names separated by commas")
            .description("The fields of the schema decoded from each record's key in key-format, in the order the "
                    + "key holds them. A record without a key fails the job unless every key field is nullable "
                    + "(then they are null).");

    public static final Option<ValueFieldsInclude> VALUE_FIELDS_INCLUDE = Option.enumOption("value-fields-include",
                    ValueFieldsInclude.class)
            .description("With key-fields: all (the default), the value holds every field, and a key field must "
                    + "have the same value in the key and the value; except-key, the value holds only the others.");

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
                METADATA_FIELDS, KEY_FORMAT, KEY_FIELDS, VALUE_FIELDS_INCLUDE));
        options.addAll(PROPERTIES);
        return options;
    }

    /** Event lines, as every job read before rows, unless the job file names a format. */
    @Override
    public Optional<String> defaultFormat() {
        return Optional.of("event");
    }

    /**
     * Rows: each record's value decoded in the job's format, its key's fields in the key format if
     * asked, then the metadata fields asked for.
     */
    @Override
    public RowSource<?> createRowSource(Context context) {
        Format format = context.format().orElseThrow();
        OptionValues options = context.options();
        List<KafkaRecordDecoding.Metadata> metadata = metadata(options);
        checkKeyOptions(options);
        if (format.identifier().equals("event")) {
            refuseRowOptions(options);
        }
        if (context.wantsEvents()) {
            return SourceFactory.super.createRowSource(context);
        }
        KafkaRecordDecoding.Key key = options.getOptional(KEY_FIELDS).map(fields -> new KafkaRecordDecoding.Key(
                keyFormat(context), Arrays.stream(fields.split(",")).map(String::trim).toList(),
                options.getOptional(VALUE_FIELDS_INCLUDE).orElse(ValueFieldsInclude.ALL) == ValueFieldsInclude.ALL))
                .orElse(null);
        // with a key, the declared schema is the rows'; the value's part of it must suit the format
        Schema fields = key == null ? format.schema(context.declaredSchema(), OWNER)
                : context.declaredSchema().orElseGet(() -> format.schema(Optional.empty(), OWNER));
        if (format.fileHeader(fields).length > 0) {
            // FMT-6: a header is the first line of a file; read as a record, it would fail or be taken as data
            throw new OptionException(OWNER + ": format '" + format.identifier() + "' is set to expect a header "
                    + "line at the start of each file, but Kafka records are not files and have none; remove the "
                    + "format's header option");
        }
        KafkaRecordDecoding<Row> decoding;
        try {
            decoding = KafkaRecordDecoding.rows(format, fields, key, metadata);
        } catch (OptionException e) {
            throw new OptionException(e.getMessage().startsWith(OWNER) ? e.getMessage() : OWNER + ": " + e.getMessage());
        }
        try {
            return RowSource.ofRows(KafkaRecordDecoding.schema(fields, metadata), builder(options).build(decoding));
        } catch (IllegalArgumentException e) {
            throw new OptionException(OWNER + ": " + e.getMessage());
        }
    }

    /** Events have their four fields: options that add or fill other fields would be ignored. */
    private static void refuseRowOptions(OptionValues options) {
        Optional<Option<?>> rowOption = Stream.of(METADATA_FIELDS, KEY_FORMAT, KEY_FIELDS, VALUE_FIELDS_INCLUDE)
                .<Option<?>>map(o -> o).filter(o -> options.getOptional(o).isPresent()).findFirst();
        if (rowOption.isPresent()) {
            throw new OptionException(OWNER + ": option '" + rowOption.get().key() + "' adds fields to rows, which "
                    + "events cannot hold; name a format such as json");
        }
    }

    /** The key options come together: a key format reads key fields, and only they need one. */
    private static void checkKeyOptions(OptionValues options) {
        boolean format = options.getOptional(KEY_FORMAT).isPresent();
        boolean fields = options.getOptional(KEY_FIELDS).isPresent();
        if (fields && !format) {
            throw new OptionException(OWNER + ": option 'key-fields' needs option 'key-format', the format the "
                    + "records' keys are in");
        }
        if (format && !fields) {
            throw new OptionException(OWNER + ": option 'key-format' needs option 'key-fields', the schema's fields "
                    + "the keys hold");
        }
        if (!fields && options.getOptional(VALUE_FIELDS_INCLUDE).isPresent()) {
            throw new OptionException(OWNER + ": option 'value-fields-include' says whether the value holds the key "
                    + "fields, and needs option 'key-fields'");
        }
    }

    private static Format keyFormat(Context context) {
        String identifier = context.options().get(KEY_FORMAT).trim();
        if (identifier.equals("event")) {
            throw new OptionException(OWNER + ": option 'key-format' cannot be event, whose records are events, not "
                    + "fields; name a format such as json or raw");
        }
        return context.format(identifier, Map.of(), OWNER + " key-format");
    }

    /**
     * @throws OptionException with a one-line message when options that each parse do not fit
     *     together (both or neither of topics and topic-pattern, a missing timestamp or group id ...)
     */
    @Override
    public ReplayableSource<Event, ?, ?> createSource(OptionValues options) {
        refuseRowOptions(options);
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
