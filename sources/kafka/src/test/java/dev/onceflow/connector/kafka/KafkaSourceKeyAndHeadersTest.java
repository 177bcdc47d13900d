package dev.onceflow.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.format.debezium.DebeziumJsonFormatFactory;
import dev.onceflow.format.json.JsonFormatFactory;
import dev.onceflow.format.raw.RawFormatFactory;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.RowSource;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowKind;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Records written by a plain kafka-clients producer, with their data in the key, the value and the
 * headers, read into rows through the factory as a job file configures it, against a real broker.
 */
@SuppressWarnings("try") // SourceDriver.close() throws Exception, like the SPI it closes.
class KafkaSourceKeyAndHeadersTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final AtomicInteger TOPICS = new AtomicInteger();

    /** Declared with key and value fields interleaved: rows keep this order. */
    private static final Schema ORDERS = Schema.of(Field.of("name", DataType.STRING),
            Field.of("id", DataType.LONG.notNull()), Field.of("qty", DataType.INT),
            Field.of("region", DataType.STRING.notNull()));

    private static EmbeddedKafkaBroker broker;
    private static KafkaProducer<byte[], byte[]> producer;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.start();
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new ByteArraySerializer(), new ByteArraySerializer());
    }

    @AfterAll
    static void stopBroker() {
        if (producer != null) {
            producer.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void exceptKeyReadsKeyFieldsFromTheJsonKeyTheOthersFromTheValueAndTheHeadersAsBytes() throws Exception {
        String topic = topic();
        byte[] trace = {0, 1, (byte) 0xff};
        send(topic, "{\"id\": 7, \"region\": \"eu\"}", "{\"name\": \"Zoë\", \"qty\": 3}",
                new RecordHeader("trace", trace), new RecordHeader("source", utf8("web")));
        send(topic, "{\"region\": \"us\", \"id\": 8}", "{\"name\": null, \"qty\": 4}");

        RowSource<?> rows = rowSource(topic, Map.of("key-format", "json", "key-fields", "id, region",
                "value-fields-include", "except-key", "metadata-fields", "offset, headers"), ORDERS);

        Schema schema = rows.schema();
        assertThat(schema.names()).containsExactly("name", "id", "qty", "region", "offset", "headers");
        assertThat(schema.field("headers").orElseThrow().type())
                .isEqualTo(DataType.map(DataType.STRING, DataType.BYTES).notNull());
        Map<String, byte[]> headers = new LinkedHashMap<>();
        headers.put("trace", trace);
        headers.put("source", utf8("web"));
        assertThat(read(rows)).containsExactly(Row.of(schema, "Zoë", 7L, 3, "eu", 0L, headers),
                Row.of(schema, null, 8L, 4, "us", 1L, Map.of()));
    }

    /**
     * FMT-8: an update event is two rows of one offset, in order and of their kinds, also with
     * metadata fields added; the tombstone after a delete is no row, and its offset is passed.
     */
    @Test
    void aChangelogFormatGivesAnUpdateTwoRowsOfItsOffsetAndATombstoneNone() throws Exception {
        String topic = topic();
        send(topic, "{\"id\":7}", "{\"before\":null,\"after\":{\"id\":7,\"name\":\"Zoë\"},\"op\":\"c\"}");
        send(topic, "{\"id\":7}", "{\"before\":{\"id\":7,\"name\":\"Zoë\"},\"after\":{\"id\":7,\"name\":\"Ada\"},"
                + "\"op\":\"u\"}");
        send(topic, "{\"id\":7}", "{\"before\":{\"id\":7,\"name\":\"Ada\"},\"after\":null,\"op\":\"d\"}");
        producer.send(new ProducerRecord<>(topic, 0, utf8("{\"id\":7}"), null)).get();
        send(topic, "{\"id\":8}", "{\"after\":{\"id\":8,\"name\":\"Bo\"},\"op\":\"r\"}");
        Schema people = Schema.of(List.of(Field.of("id", DataType.LONG), Field.of("name", DataType.STRING)),
                List.of("id"));
        DebeziumJsonFormatFactory debezium = new DebeziumJsonFormatFactory();
        RowSource<?> rows = rowSource(topic, Map.of("metadata-fields", "offset"), people,
                new Format(debezium, OptionValues.validate("format 'debezium-json'", Map.of(), debezium.options())));

        Schema schema = rows.schema();
        assertThat(schema.primaryKey()).containsExactly("id");
        assertThat(read(rows)).containsExactly(Row.of(schema, 7L, "Zoë", 0L),
                Row.of(schema, 7L, "Zoë", 1L).withKind(RowKind.UPDATE_BEFORE),
                Row.of(schema, 7L, "Ada", 1L).withKind(RowKind.UPDATE_AFTER),
                Row.of(schema, 7L, "Ada", 2L).withKind(RowKind.DELETE),
                Row.of(schema, 8L, "Bo", 4L));
    }

    @Test
    void allReadsTheKeyFieldsFromTheKeyAndFailsWhenTheValueHoldsAnotherValueForOne() throws Exception {
        String topic = topic();
        send(topic, "{\"id\": 7, \"region\": \"eu\"}", "{\"id\": 7, \"region\": \"eu\", \"name\": \"a\", \"qty\": 1}");
        send(topic, "{\"id\": 8, \"region\": \"eu\"}", "{\"id\": 9, \"region\": \"eu\", \"name\": \"b\", \"qty\": 2}");

        RowSource<?> rows = rowSource(topic, Map.of("key-format", "json", "key-fields", "id, region"), ORDERS);

        try (SourceDriver<Row> driver = SourceDriver.start(source(rows), 1)) {
            assertThatThrownBy(() -> driver.runToEnd(TIMEOUT))
                    .isInstanceOf(IOException.class)
                    .hasMessage("cannot read the record at offset 1 of partition " + topic + "-0 (format json): "
                            + "key field 'id' has one value in the key and another in the value");
            assertThat(driver.output).containsExactly(Row.of(ORDERS, "a", 7L, 1, "eu"));
        }
    }

    @Test
    void aKeyThatDoesNotDecodeFailsNamingItsOffsetAndThatItWasTheKey() throws Exception {
        String topic = topic();
        send(topic, "{\"id\": 1, \"region\": \"eu\"}", "{\"name\": \"a\", \"qty\": 1}");
        send(topic, "{\"id\": \"one\", \"region\": \"eu\"}", "{\"name\": \"b\", \"qty\": 2}");

        RowSource<?> rows = rowSource(topic, Map.of("key-format", "json", "key-fields", "id, region",
                "value-fields-include", "except-key"), ORDERS);

        // the json format's own reason, after what the source adds: the record's place and that it was the key
        String reason = reasonJsonGives(Schema.of(Field.of("id", DataType.LONG.notNull()),
                Field.of("region", DataType.STRING.notNull())), "{\"id\": \"one\", \"region\": \"eu\"}");
        try (SourceDriver<Row> driver = SourceDriver.start(source(rows), 1)) {
            assertThatThrownBy(() -> driver.runToEnd(TIMEOUT))
                    .isInstanceOf(IOException.class)
                    .hasMessage("cannot read the record at offset 1 of partition " + topic + "-0 (format json): its "
                            + "key (format json) does not decode: " + reason);
            assertThat(driver.output).containsExactly(Row.of(ORDERS, "a", 1L, 1, "eu"));
        }
    }

    @Test
    void aRecordWithoutAKeyFailsWhereAKeyFieldIsNotNullAndGivesNullsWhereAllMayBeNull() throws Exception {
        String topic = topic();
        send(topic, null, "{\"name\": \"a\", \"qty\": 1}");

        RowSource<?> required = rowSource(topic, Map.of("key-format", "json", "key-fields", "id, region",
                "value-fields-include", "except-key"), ORDERS);
        try (SourceDriver<Row> driver = SourceDriver.start(source(required), 1)) {
            assertThatThrownBy(() -> driver.runToEnd(TIMEOUT))
                    .isInstanceOf(IOException.class)
                    .hasMessage("cannot read the record at offset 0 of partition " + topic + "-0 (format json): "
                            + "it has no key (null), and key field 'id' may not be null");
        }

        Schema nullableKey = Schema.of(Field.of("name", DataType.STRING), Field.of("id", DataType.LONG),
                Field.of("qty", DataType.INT));
        RowSource<?> optional = rowSource(topic, Map.of("key-format", "json", "key-fields", "id",
                "value-fields-include", "except-key"), nullableKey);
        assertThat(read(optional)).containsExactly(Row.of(nullableKey, "a", null, 1));
    }

    @Test
    void aKeyFormatThatFixesItsSchemaFillsTheKeyFieldByPositionAndTheLastOfDuplicateHeadersIsKept()
            throws Exception {
        String topic = topic();
        send(topic, "eu", "{\"name\": \"a\", \"id\": 1, \"qty\": 1}", new RecordHeader("h", utf8("first")),
                new RecordHeader("h", utf8("last")));

        RowSource<?> rows = rowSource(topic, Map.of("key-format", "raw", "key-fields", "region",
                "value-fields-include", "except-key", "metadata-fields", "headers"), ORDERS);

        assertThat(read(rows)).containsExactly(Row.of(rows.schema(), "a", 1L, 1, "eu", Map.of("h", utf8("last"))));
    }

    @Test
    void aValueFormatThatFixesItsSchemaFillsTheValueFieldByPosition() throws Exception {
        String topic = topic();
        send(topic, "{\"id\": 5}", "plain text, not JSON");
        Schema schema = Schema.of(Field.of("id", DataType.LONG.notNull()), Field.of("body", DataType.STRING));
        RawFormatFactory raw = new RawFormatFactory();
        Format format = new Format(raw, OptionValues.validate("format 'raw'", Map.of(), raw.options()));

        RowSource<?> rows = rowSource(topic, Map.of("key-format", "json", "key-fields", "id",
                "value-fields-include", "except-key"), schema, format);

        assertThat(read(rows)).containsExactly(Row.of(schema, 5L, "plain text, not JSON"));
    }

    private static String reasonJsonGives(Schema schema, String record) {
        JsonFormatFactory json = new JsonFormatFactory();
        return assertThatThrownBy(() -> json.createDecoder(schema, OptionValues.validate("format 'json'", Map.of(),
                json.options())).decode(utf8(record))).isInstanceOf(MalformedRecordException.class).actual()
                .getMessage();
    }

    private static List<Row> read(RowSource<?> rows) throws Exception {
        try (SourceDriver<Row> driver = SourceDriver.start(source(rows), 1)) {
            return driver.runToEnd(TIMEOUT);
        }
    }

    /** The factory's source of rows, as a job file with format json and {@code schema} makes it. */
    private static RowSource<?> rowSource(String topic, Map<String, String> raw, Schema schema) {
        JsonFormatFactory json = new JsonFormatFactory();
        return rowSource(topic, raw, schema, new Format(json, OptionValues.validate("format 'json'", Map.of(),
                json.options())));
    }

    /** The factory's source of rows, as a job file with {@code format} and {@code schema} makes it. */
    private static RowSource<?> rowSource(String topic, Map<String, String> raw, Schema schema, Format format) {
        KafkaSourceFactory factory = new KafkaSourceFactory();
        Map<String, String> all = new HashMap<>(raw);
        all.put("bootstrap-servers", broker.bootstrapServers());
        all.put("topics", topic);
        all.put("bounded", "true");
        return factory.createRowSource(KafkaSourceFactoryTest.context(
                OptionValues.validate("source 'kafka'", all, factory.options()), format, Optional.of(schema)));
    }

    @SuppressWarnings("unchecked")
    private static KafkaSource<Row> source(RowSource<?> rows) {
        return (KafkaSource<Row>) rows.source();
    }

    private static void send(String topic, String key, String value, RecordHeader... headers) throws Exception {
        producer.send(new ProducerRecord<>(topic, 0, null, key == null ? null : utf8(key), utf8(value),
                List.of(headers))).get();
    }

    private static String topic() {
        String name = "keyed-" + TOPICS.incrementAndGet();
        broker.createTopic(name, 1);
        return name;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
