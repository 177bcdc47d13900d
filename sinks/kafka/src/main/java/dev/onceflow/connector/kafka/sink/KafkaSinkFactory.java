package dev.onceflow.connector.kafka.sink;

import dev.onceflow.connector.kafka.common.PassThroughSettings;
import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.RowSink;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventRows;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.sink.Sink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Makes the Kafka sink usable from job files as {@code kafka}.
 *
 * <p>Kafka producer settings are passed through as {@code properties.<producer setting>} (for
 * example {@code properties.compression.type: lz4}, {@code properties.partitioner.class}); one
 * option is declared per producer setting the sink does not manage, so a misspelt setting is
 * refused before anything runs.
 */
public final class KafkaSinkFactory implements SinkFactory {

    private static final String OWNER = "sink 'kafka'";

    /** Prefix of the options passed to the Kafka producer as they are. */
    public static final String PROPERTIES_PREFIX = PassThroughSettings.PREFIX;

    public static final Option<String> BOOTSTRAP_SERVERS = Option.stringOption("bootstrap-servers").required()
            .validate(s -> !s.isBlank(), "host:port[,host:port...]")
            .description("Kafka brokers to connect to first, host:port[,host:port...].");

    public static final Option<String> TOPIC = Option.stringOption("topic").required()
            .validate(s -> !s.isBlank(), "a topic name, or a template with {field}")
            .description("Topic the records are written to; it must exist. {field} in it stands for that field's "
                    + "value, giving a topic per value (orders-{region}); every such topic must exist, and a value "
                    + "that is null or makes an illegal topic name fails the job naming the record.");

    public static final Option<KafkaSinkMode> MODE = Option.enumOption("mode", KafkaSinkMode.class)
            .defaultValue(KafkaSinkMode.EXACTLY_ONCE)
            .description("EXACTLY_ONCE: a Kafka transaction per checkpoint, committed when it completes; records of a "
                    + "checkpoint are lost, loudly, if the job stays down longer than transaction-timeout. "
                    + "WRITE_AHEAD: records kept in the checkpoint and written after it completes, atomically with a "
                    + "marker in control-topic; no time limit, larger checkpoints. "
                    + "AT_LEAST_ONCE: flushed at every checkpoint; nothing lost, duplicates after a crash. NONE: never waited "
                    + "for; no guarantee, records may be lost on a crash.");

    public static final Option<String> TRANSACTIONAL_ID_PREFIX = Option.stringOption("transactional-id-prefix")
            .validate(s -> !s.isBlank() && s.chars().noneMatch(Character::isWhitespace), "a name without spaces")
            .description("Prefix of the sink's transactional ids (<prefix>-<subtask>-<n>) and marker keys; must be "
                    + "unique among the sinks writing to one cluster. Default <job>:<sink uid>, names escaped.");

    public static final Option<Duration> TRANSACTION_TIMEOUT = Option.durationOption("transaction-timeout")
            .defaultValue(KafkaSink.DEFAULT_TRANSACTION_TIMEOUT)
            .validate(d -> d.compareTo(Duration.ofSeconds(1)) >= 0 && d.toMillis() <= Integer.MAX_VALUE,
                    "a duration of at least 1s, at most the brokers' transaction.max.timeout.ms")
            .description("Kafka's transaction.timeout.ms. EXACTLY_ONCE: the longest a checkpoint's transaction may "
                    + "wait for its commit, including while the job is down; longer and the broker aborts it. "
                    + "Must not exceed the brokers' transaction.max.timeout.ms (default 15m).");

    public static final Option<String> CONTROL_TOPIC = Option.stringOption("control-topic")
            .validate(s -> !s.isBlank(), "a topic name")
            .description("WRITE_AHEAD: topic of the markers that say which checkpoints were written; created "
                    + "(compacted, one partition) if missing. Default <transactional-id-prefix>-checkpoints, or "
                    + "<job>-<sink uid>-checkpoints without a prefix.");

    public static final Option<KafkaWriteMode> WRITE_MODE = Option.enumOption("write-mode", KafkaWriteMode.class)
            .defaultValue(KafkaWriteMode.APPEND)
            .description("append: every row is a record, and an update or delete fails the job. upsert: for a "
                    + "changelog into a compacted topic; the record key is the input's primary key (key-encoding "
                    + "applies), an insert or update writes the row as the value, a delete a tombstone (no value) "
                    + "for its key, an update's old content nothing. Needs a primary key and a format that is not a "
                    + "changelog (json, avro ...); works in every mode.");

    public static final Option<RecordKey> KEY = Option.enumOption("key", RecordKey.class)
            .description("Events: the Kafka record key is the event's KEY (the default for events), its ID, or NONE. "
                    + "For other rows use key-fields.");

    public static final Option<String> KEY_FIELDS = Option.stringOption("key-fields")
            .validate(s -> Arrays.stream(s.split(",")).noneMatch(String::isBlank), "field names separated by commas")
            .description("Fields that make the Kafka record key, separated by commas; none by default (no key, the "
                    + "partitioner spreads records). With the default partitioner all records of one key land in one "
                    + "partition, in order.");

    public static final Option<KeyEncoding> KEY_ENCODING = Option.enumOption("key-encoding", KeyEncoding.class)
            .defaultValue(KeyEncoding.TEXT)
            .description("TEXT: one key field's value as UTF-8 text (bytes as they are; null gives no key). FORMAT: "
                    + "the key fields as a record of their own in the sink's format, such as a JSON object.");

    public static final Option<String> HEADERS_FIELD = Option.stringOption("headers-field")
            .validate(s -> !s.isBlank(), "a field name")
            .description("Rows only: a field of type map<string, bytes> or map<string, string> whose entries become "
                    + "each record's headers, in the map's order (a null value: a header without a value; a null map: "
                    + "no headers). The field is not written into the value, so a job that reads a topic with "
                    + "metadata-fields: headers writes records with the same headers and the same value.");

    public static final Option<String> ID_HEADER = Option.stringOption("id-header")
            .validate(s -> !s.isBlank(), "a header name")
            .description("If set, each record carries field id's value in a header of this name.");

    /**
     * One option per Kafka producer setting: those that may be passed through, and the managed
     * ones, declared so that setting one is refused with what to use instead rather than as an
     * unknown option.
     */
    static final List<Option<String>> PROPERTIES = java.util.stream.Stream.concat(
                    PassThroughSettings.options(ProducerSettings.passThroughKeys(), "producer", "sink").stream(),
                    new java.util.TreeSet<>(ProducerSettings.MANAGED).stream()
                            .map(key -> Option.stringOption(PassThroughSettings.PREFIX + key)
                                    .description("Refused: the sink manages '" + key + "' itself.")))
            .toList();

    @Override
    public String identifier() {
        return "kafka";
    }

    @Override
    public String description() {
        return "Writes records (each row as the record value in a format: event lines by default, json, csv ...) to a "
                + "Kafka topic: exactly-once with Kafka transactions (default) or a write-ahead log, or at-least-once.";
    }

    @Override
    public List<Option<?>> options() {
        List<Option<?>> options = new ArrayList<>(List.of(BOOTSTRAP_SERVERS, TOPIC, MODE, WRITE_MODE,
                TRANSACTIONAL_ID_PREFIX, TRANSACTION_TIMEOUT, CONTROL_TOPIC, KEY, KEY_FIELDS, KEY_ENCODING, HEADERS_FIELD, ID_HEADER));
        options.addAll(PROPERTIES);
        return options;
    }

    /** Upsert write mode keys records by primary key and deletes by tombstone (CHG-4). */
    @Override
    public boolean acceptsChanges(OptionValues options) {
        return options.get(WRITE_MODE) == KafkaWriteMode.UPSERT;
    }

    /** Event lines, as every job wrote before rows, unless the job file names a format. */
    @Override
    public Optional<String> defaultFormat() {
        return Optional.of("event");
    }

    /**
     * Rows, each as a record value in the job's format: events too, so that every job file goes
     * through this path. {@code key} and {@code id-header} name fields {@code key} and {@code id}.
     *
     * @throws OptionException with a one-line message naming the option or field that does not fit
     */
    @Override
    public RowSink<Row> createRowSink(Context context) {
        OptionValues options = context.options();
        Format format = context.format().orElseThrow();
        Schema input = context.inputSchema();
        if (format.identifier().equals("event") && !isEvents(input)) {
            throw new OptionException(OWNER + ": the input is not events (fields " + String.join(", ", input.names())
                    + "), which format 'event' writes; name a format such as json");
        }
        if (format.fileHeader(input).length > 0) {
            // FMT-6: a header is the first line of a file; a record written without it would drop the option silently
            throw new OptionException(OWNER + ": format '" + format.identifier() + "' is set to write a header line "
                    + "at the start of each file, but Kafka records are not files and have none; remove the format's "
                    + "header option");
        }
        KafkaWriteMode writeMode = options.get(WRITE_MODE);
        if (writeMode == KafkaWriteMode.UPSERT && options.getOptional(KEY).isPresent()) {
            throw new OptionException(OWNER + ": write-mode upsert keys each record by the primary key, and option "
                    + "'key' chooses another; remove key");
        }
        // upsert: no key-fields stands for the primary key, which RowRecords checks them against
        List<String> keyFields = writeMode == KafkaWriteMode.UPSERT && options.getOptional(KEY_FIELDS).isEmpty()
                ? List.of() : keyFields(options, input);
        try {
            return RowSink.ofRows(configured(options)
                    .rows(input, format, keyFields, options.get(KEY_ENCODING),
                            options.getOptional(HEADERS_FIELD).orElse(null))
                    .writeMode(writeMode).build(options.get(MODE)));
        } catch (IllegalArgumentException e) {
            throw new OptionException(e.getMessage().startsWith(OWNER) ? e.getMessage() : OWNER + ": " + e.getMessage());
        }
    }

    private static List<String> keyFields(OptionValues options, Schema input) {
        Optional<RecordKey> key = options.getOptional(KEY);
        if (options.getOptional(KEY_FIELDS).isPresent()) {
            if (key.isPresent()) {
                throw new OptionException(OWNER + ": options 'key' and 'key-fields' both choose the record key; "
                        + "keep key-fields");
            }
            return Arrays.stream(options.get(KEY_FIELDS).split(",")).map(String::trim).toList();
        }
        return switch (key.orElse(isEvents(input) ? RecordKey.KEY : RecordKey.NONE)) {
            case KEY -> List.of("key");
            case ID -> List.of("id");
            case NONE -> List.of();
        };
    }

    /** Whether {@code schema} has exactly an event's fields, in any order. */
    private static boolean isEvents(Schema schema) {
        try {
            EventRows.fromSchema(schema, OWNER);
            return true;
        } catch (OptionException notEvents) {
            return false;
        }
    }

    /**
     * @throws OptionException with a one-line message when options that each parse do not fit together
     */
    @Override
    public Sink<Event> createSink(OptionValues options) {
        if (options.getOptional(KEY_FIELDS).isPresent()) {
            throw new OptionException(OWNER + ": option 'key-fields' applies to rows; a sink of events takes 'key'");
        }
        if (options.getOptional(HEADERS_FIELD).isPresent()) {
            throw new OptionException(OWNER + ": option 'headers-field' applies to rows; events have no such field");
        }
        if (options.get(WRITE_MODE) == KafkaWriteMode.UPSERT) {
            throw new OptionException(OWNER + ": write-mode upsert applies to rows with a primary key; a sink of "
                    + "events appends");
        }
        try {
            KafkaSink.Builder<Event> builder = configured(options);
            options.getOptional(KEY).ifPresent(builder::key);
            return builder.build(options.get(MODE));
        } catch (IllegalArgumentException e) {
            throw new OptionException(OWNER + ": " + e.getMessage());
        }
    }

    private static KafkaSink.Builder<Event> configured(OptionValues options) {
        try {
            KafkaSink.Builder<Event> builder = KafkaSink.builder(options.get(BOOTSTRAP_SERVERS), options.get(TOPIC))
                    .transactionTimeout(options.get(TRANSACTION_TIMEOUT));
            options.getOptional(TRANSACTIONAL_ID_PREFIX).ifPresent(builder::transactionalIdPrefix);
            options.getOptional(CONTROL_TOPIC).ifPresent(builder::controlTopic);
            options.getOptional(ID_HEADER).ifPresent(builder::idHeader);
            for (Option<String> property : PROPERTIES) {
                options.getOptional(property).ifPresent(
                        value -> builder.property(property.key().substring(PROPERTIES_PREFIX.length()), value));
            }
            return builder;
        } catch (IllegalArgumentException e) {
            throw new OptionException(OWNER + ": " + e.getMessage());
        }
    }
}
