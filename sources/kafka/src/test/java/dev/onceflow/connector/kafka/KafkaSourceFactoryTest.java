package dev.onceflow.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.format.csv.CsvFormatFactory;
import dev.onceflow.format.event.EventFormatFactory;
import dev.onceflow.format.json.JsonFormatFactory;
import dev.onceflow.format.raw.RawFormatFactory;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.RowSource;
import dev.onceflow.spi.factory.SourceFactory;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.source.Boundedness;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;

/** Discovery by name and option validation, as the CLI does it for a job file; no broker needed. */
class KafkaSourceFactoryTest {

    private final KafkaSourceFactory factory = new KafkaSourceFactory();

    @Test
    void isFoundByServiceLoaderUnderItsIdentifier() {
        assertThat(ServiceLoader.load(SourceFactory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> f.identifier().equals("kafka")).toList())
                .singleElement().isInstanceOf(KafkaSourceFactory.class);
    }

    @Test
    void defaultsAreContinuousReadCommittedFromEarliestWithDiscovery() {
        KafkaSource source = create(Map.of("topics", "a, b"));

        assertThat(source.boundedness()).isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
        assertThat(source.topics()).containsExactly("a", "b");
        assertThat(source.startingOffsets()).isEqualTo(StartingOffsets.EARLIEST);
        assertThat(source.client().isolationLevel()).isEqualTo(IsolationLevel.READ_COMMITTED);
        assertThat(source.discoveryInterval()).isEqualTo(KafkaSource.DEFAULT_DISCOVERY_INTERVAL);
        assertThat(source.client().groupId()).isNull();
    }

    @Test
    void boundedSourceNeverDiscovers() {
        KafkaSource source = create(Map.of("topic-pattern", "in-.*", "bounded", "true"));

        assertThat(source.boundedness()).isEqualTo(Boundedness.BOUNDED);
        assertThat(source.discoveryInterval()).isEqualTo(Duration.ZERO);
        assertThat(source.topicPattern().pattern()).isEqualTo("in-.*");
    }

    @Test
    void enumValuesAreMatchedCaseInsensitively() {
        KafkaSource source = create(Map.of("topics", "a", "isolation-level", "read_uncommitted",
                "starting-offsets", "timestamp", "starting-timestamp", "1700000000000"));

        assertThat(source.client().isolationLevel()).isEqualTo(IsolationLevel.READ_UNCOMMITTED);
        assertThat(source.startingOffsets()).isEqualTo(StartingOffsets.TIMESTAMP);
        assertThat(source.startingTimestamp()).isEqualTo(1_700_000_000_000L);
    }

    @Test
    void settingsThatDoNotFitTogetherAreRefusedInOneLine() {
        assertRefused(Map.of(), "source 'kafka': set either 'topics' or 'topic-pattern'");
        assertRefused(Map.of("topics", "a", "topic-pattern", "b"),
                "source 'kafka': set either 'topics' or 'topic-pattern', not both");
        assertRefused(Map.of("topics", "a", "starting-offsets", "timestamp"),
                "source 'kafka': starting-offsets TIMESTAMP needs 'starting-timestamp'");
        assertRefused(Map.of("topics", "a", "starting-timestamp", "5"),
                "source 'kafka': 'starting-timestamp' is only used with starting-offsets TIMESTAMP");
        assertRefused(Map.of("topics", "a", "starting-offsets", "committed"),
                "source 'kafka': starting-offsets COMMITTED needs 'group-id'");
        assertRefused(Map.of("topics", "a", "bounded", "true", "discovery-interval", "1s"),
                "source 'kafka': a bounded source reads the partitions present at its first start; "
                        + "'discovery-interval' cannot be set with 'bounded'");
        assertRefused(Map.of("topic-pattern", "("),
                "source 'kafka': topic-pattern '(' is not a regular expression: Unclosed group");
    }

    @Test
    void invalidValuesAreNamed() {
        assertThatThrownBy(() -> validate(Map.of("topics", "a")))
                .isInstanceOf(OptionException.class)
                .hasMessageStartingWith("source 'kafka': missing required option 'bootstrap-servers'");
        assertThatThrownBy(() -> validate(withServers(Map.of("topics", "a,,b"))))
                .isInstanceOf(OptionException.class)
                .hasMessage("source 'kafka': option 'topics' has value 'a,,b'; expected topic names separated by commas");
        assertThatThrownBy(() -> validate(withServers(Map.of("topics", "a", "starting-offsets", "newest"))))
                .isInstanceOf(OptionException.class)
                .hasMessage("source 'kafka': option 'starting-offsets' has value 'newest'; "
                        + "expected one of earliest, latest, timestamp, committed");
        assertThatThrownBy(() -> validate(withServers(Map.of("topics", "a", "discovery-interval", "-1s"))))
                .isInstanceOf(OptionException.class).hasMessageContaining("option 'discovery-interval' has value '-1s'");
    }

    @Test
    void kafkaSettingsPassThroughAndTyposAreUnknownOptions() {
        KafkaSource source = create(Map.of("topics", "a", "properties.security.protocol", "SSL",
                "properties.max.poll.records", "50"));

        assertThat(source.client().consumer()).containsEntry("security.protocol", "SSL")
                .containsEntry("max.poll.records", "50");
        assertThat(source.client().admin()).containsEntry("security.protocol", "SSL")
                .doesNotContainKey("max.poll.records");
        assertThatThrownBy(() -> validate(withServers(Map.of("topics", "a", "properties.securty.protocol", "SSL"))))
                .isInstanceOf(OptionException.class)
                .hasMessageStartingWith("source 'kafka': unknown option 'properties.securty.protocol'");
    }

    @Test
    void settingsTheSourceManagesCannotBePassedThrough() {
        assertThatThrownBy(() -> validate(withServers(Map.of("topics", "a", "properties.enable.auto.commit", "true"))))
                .isInstanceOf(OptionException.class)
                .hasMessageStartingWith("source 'kafka': unknown option 'properties.enable.auto.commit'");
        assertThatThrownBy(() -> KafkaSource.builder("b:9092").property("group.id", "g"))
                .hasMessage("Kafka setting 'group.id' is managed by the source and cannot be passed through; "
                        + "use the option 'group-id'");
        assertThatThrownBy(() -> KafkaSource.builder("b:9092").property("auto.offset.reset", "earliest"))
                .hasMessage("Kafka setting 'auto.offset.reset' is managed by the source and cannot be passed through");
    }

    @Test
    void managedSettingsAreWhatTheGuaranteesNeed() {
        Map<String, Object> consumer = create(Map.of("topics", "a", "group-id", "g")).client().consumer();

        assertThat(consumer).containsEntry("enable.auto.commit", "false").containsEntry("auto.offset.reset", "none")
                .containsEntry("isolation.level", "read_committed").containsEntry("group.id", "g")
                .containsEntry("allow.auto.create.topics", "false");
    }

    @Test
    void secretValuesAreNeverShown() {
        String jaas = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"p4ss\";";
        KafkaSource source = create(Map.of("topics", "a", "properties.sasl.jaas.config", jaas,
                "properties.ssl.key.password", "k3y", "properties.ssl.keystore.password", "st0re",
                "properties.sasl.mechanism", "PLAIN"));

        assertThat(source.toString()).doesNotContain("p4ss", "k3y", "st0re")
                .contains("sasl.jaas.config=[hidden]", "sasl.mechanism=PLAIN");
        assertThat(factory.options()).filteredOn(o -> o.key().equals("properties.sasl.jaas.config")).singleElement()
                .satisfies(o -> assertThat(o.description()).endsWith("(never logged)."));
    }

    private KafkaSource create(Map<String, String> raw) {
        return (KafkaSource) factory.createSource(validate(withServers(raw)));
    }

    private void assertRefused(Map<String, String> raw, String message) {
        OptionValues values = validate(withServers(raw));
        assertThatThrownBy(() -> factory.createSource(values)).isInstanceOf(OptionException.class).hasMessage(message);
    }

    @Test
    void metadataFieldsFollowTheValuesFieldsAndNeedAFormatOfRows() {
        assertThatThrownBy(() -> validate(withServers(Map.of("topics", "a", "metadata-fields", "topic, key"))))
                .isInstanceOf(OptionException.class)
                .hasMessageContaining("expected names among topic, partition, offset, timestamp, headers, separated by commas");

        OptionValues values = validate(withServers(Map.of("topics", "a", "metadata-fields", "offset, topic")));
        assertThatThrownBy(() -> factory.createRowSource(context(values, new Format(new EventFormatFactory(),
                OptionValues.validate("format 'event'", Map.of(), List.of())), Optional.empty())))
                .isInstanceOf(OptionException.class)
                .hasMessage("source 'kafka': option 'metadata-fields' adds fields to rows, which events cannot hold; "
                        + "name a format such as json");

        Format raw = new Format(new RawFormatFactory(), OptionValues.validate("format 'raw'", Map.of(),
                new RawFormatFactory().options()));
        RowSource<?> source = factory.createRowSource(context(values, raw, Optional.empty()));
        assertThat(source.schema()).hasToString("row<value string not null, offset long not null, topic string not null>");

        Schema clash = Schema.of(Field.of("offset", DataType.STRING.notNull()));
        Format rawNamedOffset = new Format(new RawFormatFactory(), OptionValues.validate("format 'raw'",
                Map.of("field", "offset"), new RawFormatFactory().options()));
        assertThatThrownBy(() -> factory.createRowSource(context(values, rawNamedOffset, Optional.of(clash))))
                .hasMessage("source 'kafka': metadata field 'offset' has the name of a field of the records' schema; "
                        + "rename that field");
    }

    /** Key options that do not fit the schema, each other or the format are refused at load, in one line. */
    @Test
    void keyOptionsThatDoNotFitAreRefusedInOneLine() {
        Schema schema = Schema.of(Field.of("id", DataType.LONG.notNull()), Field.of("name", DataType.STRING));
        Format json = format(new JsonFormatFactory());

        assertRowsRefused(Map.of("key-fields", "id"), json, schema,
                "source 'kafka': option 'key-fields' needs option 'key-format', the format the records' keys are in");
        assertRowsRefused(Map.of("key-format", "json"), json, schema,
                "source 'kafka': option 'key-format' needs option 'key-fields', the schema's fields the keys hold");
        assertRowsRefused(Map.of("value-fields-include", "except-key"), json, schema,
                "source 'kafka': option 'value-fields-include' says whether the value holds the key fields, and "
                        + "needs option 'key-fields'");
        assertRowsRefused(Map.of("key-format", "json", "key-fields", "id, sku"), json, schema,
                "source 'kafka': key field 'sku' is not a field of the records' schema; fields: id, name");
        assertRowsRefused(Map.of("key-format", "json", "key-fields", "id, id"), json, schema,
                "source 'kafka': key field 'id' is named twice in key-fields");
        assertRowsRefused(Map.of("key-format", "json", "key-fields", "id, name", "value-fields-include",
                "except-key"), json, schema, "source 'kafka': every field is a key field, so with "
                + "value-fields-include except-key the value would hold none; declare the value's fields in the "
                + "schema too");
        assertRowsRefused(Map.of("key-format", "raw", "key-fields", "id"), json, schema,
                "source 'kafka': key-format 'raw' reads keys as row<value string not null>, but key-fields are "
                        + "row<id long not null>; list key fields of those types");
        assertRowsRefused(Map.of("key-format", "json", "key-fields", "name", "value-fields-include", "except-key"),
                format(new RawFormatFactory()), schema, "source 'kafka': format 'raw' reads values as row<value "
                        + "string not null>, but the value's fields are row<id long not null>; declare the schema so "
                        + "that the fields the value holds are of those types");
        assertRowsRefused(Map.of("key-format", "event", "key-fields", "id"), json, schema,
                "source 'kafka': option 'key-format' cannot be event, whose records are events, not fields; name a "
                        + "format such as json or raw");
        assertRowsRefused(Map.of("key-format", "protobuf", "key-fields", "id"), json, schema,
                "source 'kafka' key-format: no format 'protobuf'");
        Format event = new Format(new EventFormatFactory(), OptionValues.validate("format 'event'", Map.of(),
                List.of()));
        assertRowsRefused(Map.of("key-format", "json", "key-fields", "id"), event, null,
                "source 'kafka': option 'key-format' adds fields to rows, which events cannot hold; name a format "
                        + "such as json");
        // the events of Java programs too: a key option would be ignored there
        assertRefused(Map.of("topics", "a", "key-format", "json", "key-fields", "id"),
                "source 'kafka': option 'key-format' adds fields to rows, which events cannot hold; name a format "
                        + "such as json");
    }

    @Test
    void keyFieldsAreTheSchemasAndHeadersAreAMapOfBytes() {
        Schema schema = Schema.of(Field.of("id", DataType.LONG.notNull()), Field.of("name", DataType.STRING));
        OptionValues values = validate(withServers(Map.of("topics", "a", "key-format", "json", "key-fields", "id",
                "value-fields-include", "except-key", "metadata-fields", "headers")));

        RowSource<?> source = factory.createRowSource(context(values, format(new JsonFormatFactory()),
                Optional.of(schema)));

        assertThat(source.schema()).hasToString("row<id long not null, name string, headers map<string, bytes> not "
                + "null>");
    }

    private void assertRowsRefused(Map<String, String> raw, Format format, Schema schema, String message) {
        Map<String, String> all = new HashMap<>(raw);
        all.put("topics", "a");
        OptionValues values = validate(withServers(all));
        assertThatThrownBy(() -> factory.createRowSource(context(values, format, Optional.ofNullable(schema))))
                .isInstanceOf(OptionException.class).hasMessage(message);
    }

    private static Format format(FormatFactory factory) {
        return new Format(factory, OptionValues.validate("format '" + factory.identifier() + "'", Map.of(),
                factory.options()));
    }

    /** FMT-6: a header is a file's first line; a Kafka record has none, so header: true is refused at load. */
    @Test
    void aFormatExpectingAFileHeaderIsRefusedInOneLine() {
        OptionValues values = validate(withServers(Map.of("topics", "a")));
        CsvFormatFactory csv = new CsvFormatFactory();
        Schema schema = Schema.of(Field.of("id", DataType.LONG.notNull()), Field.of("name", DataType.STRING));

        assertThatThrownBy(() -> factory.createRowSource(context(values, new Format(csv, OptionValues.validate(
                "format 'csv'", Map.of("header", "true"), csv.options())), Optional.of(schema))))
                .isInstanceOf(OptionException.class)
                .hasMessage("source 'kafka': format 'csv' is set to expect a header line at the start of each file, "
                        + "but Kafka records are not files and have none; remove the format's header option");
        assertThat(factory.createRowSource(context(values, new Format(csv, OptionValues.validate("format 'csv'",
                Map.of(), csv.options())), Optional.of(schema))).schema()).isEqualTo(schema);
    }

    /**
     * A context as the CLI gives one: the job's format, and any other format found by name with its
     * options validated.
     */
    static SourceFactory.Context context(OptionValues options, Format format, Optional<Schema> schema) {
        return new SourceFactory.Context() {
            @Override
            public Format format(String identifier, Map<String, String> formatOptions, String owner) {
                FormatFactory found = ServiceLoader.load(FormatFactory.class).stream().map(ServiceLoader.Provider::get)
                        .filter(f -> f.identifier().equals(identifier)).findFirst()
                        .orElseThrow(() -> new OptionException(owner + ": no format '" + identifier + "'"));
                return new Format(found, OptionValues.validate(owner, formatOptions, found.options()));
            }

            @Override
            public OptionValues options() {
                return options;
            }

            @Override
            public Optional<Schema> declaredSchema() {
                return schema;
            }

            @Override
            public Optional<Format> format() {
                return Optional.of(format);
            }
        };
    }

    private static Map<String, String> withServers(Map<String, String> raw) {
        Map<String, String> all = new HashMap<>(raw);
        all.put("bootstrap-servers", "127.0.0.1:9092");
        return all;
    }

    private OptionValues validate(Map<String, String> raw) {
        return OptionValues.validate("source 'kafka'", raw, factory.options());
    }
}
