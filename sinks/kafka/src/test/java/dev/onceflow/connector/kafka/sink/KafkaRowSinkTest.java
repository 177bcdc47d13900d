package dev.onceflow.connector.kafka.sink;

import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.context;
import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.newTopic;
import static dev.onceflow.connector.kafka.sink.KafkaTestSupport.readCommittedRecords;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.format.event.EventFormatFactory;
import dev.onceflow.format.json.JsonFormatFactory;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.record.EventRows;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowKind;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.sink.AtLeastOnceSink;
import dev.onceflow.spi.sink.AtLeastOnceWriter;
import dev.onceflow.spi.sink.GenericWriteAheadSink;
import dev.onceflow.spi.sink.Sink;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Rows through the factory as a job file builds the sink, against a real broker: the value in the
 * job's format, the key from key fields, the topic from a field, and one-line refusals of what
 * does not fit the input.
 */
class KafkaRowSinkTest {

    private static final Schema ORDERS = Schema.of(List.of(
            Field.of("order_id", DataType.LONG.notNull()),
            Field.of("customer", DataType.STRING),
            Field.of("region", DataType.STRING),
            Field.of("amount", DataType.decimal(10, 2)),
            Field.of("placed_at", DataType.TIMESTAMP_TZ),
            Field.of("note", DataType.STRING)), List.of("order_id"));

    private static EmbeddedKafkaBroker broker;
    private final KafkaSinkFactory factory = new KafkaSinkFactory();

    @BeforeAll
    static void start() {
        broker = KafkaTestSupport.startBroker();
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static Row order(long id, String customer, String region, String amount, String note) {
        return Row.of(ORDERS, id, customer, region, amount == null ? null : new BigDecimal(amount),
                Instant.parse("2026-12-06T10:00:00Z").plusMillis(id * 1_001), note);
    }

    private static Format format(FormatFactory formatFactory) {
        return new Format(formatFactory, OptionValues.validate("format '" + formatFactory.identifier() + "'", Map.of(),
                formatFactory.options()));
    }

    private Sink<?> rowSink(Schema input, Format format, Map<String, String> options) {
        Map<String, String> all = new HashMap<>(Map.of("bootstrap-servers", broker == null ? "127.0.0.1:9092"
                : broker.bootstrapServers()));
        all.putAll(options);
        OptionValues values = OptionValues.validate("sink 'kafka'", all, factory.options());
        return factory.createRowSink(new SinkFactory.Context() {
            @Override
            public OptionValues options() {
                return values;
            }

            @Override
            public Schema inputSchema() {
                return input;
            }

            @Override
            public Optional<Format> format() {
                return Optional.of(format);
            }
        }).sink();
    }

    private static Row decoded(RowDecoder decoder, ConsumerRecord<byte[], byte[]> record) throws Exception {
        return decoder.decode(record.value());
    }

    @Test
    @SuppressWarnings("unchecked")
    void rowsGoExactlyOnceAsJsonKeyedByTheirKeyFieldToTheTopicOfTheirRegionAlsoThroughARecovery() throws Exception {
        String base = newTopic(broker, 1);
        broker.createTopic(base + "-eu", 1);
        broker.createTopic(base + "-us", 1);
        var sink = (TwoPhaseCommitSink<Row, KafkaTransaction>) rowSink(ORDERS, format(new JsonFormatFactory()),
                Map.of("topic", base + "-{region}", "key-fields", "customer", "transactional-id-prefix", base));
        List<Row> first = List.of(order(1, "c-1", "eu", "12.50", "first"), order(2, "c-2", "us", "0.05", null),
                order(3, null, "eu", "-7.00", "naïve ☃ \"quoted\"\nline"));
        List<Row> second = List.of(order(4, "c-1", "us", "99999999.99", ""), order(5, "c-3", "eu", null, "x"));
        try (TransactionalWriter<Row, KafkaTransaction> writer = sink.createWriter(context(base, 0, 1, 1, null))) {
            writer.abortLingering();
            KafkaTransaction open = writer.beginTransaction(1);
            for (Row row : first) {
                writer.write(open, row);
            }
            writer.commit(writer.preCommit(open));
        }
        try (TransactionalWriter<Row, KafkaTransaction> crashed = sink.createWriter(context(base, 0, 1, 1, null))) {
            crashed.abortLingering();
            KafkaTransaction open = crashed.beginTransaction(2);
            for (Row row : second) {
                crashed.write(open, row);
            }
            KafkaTransaction handle = crashed.preCommit(open);
            try (var recovering = sink.createWriter(context(base, 0, 1, 1, 2L))) {
                recovering.recoverAndCommit(handle);
            }
        }
        RowDecoder decoder = new JsonFormatFactory().createDecoder(ORDERS, format(new JsonFormatFactory()).options());
        Map<String, List<String>> keysByTopic = new HashMap<>();
        List<Row> written = new ArrayList<>();
        for (String region : List.of("eu", "us")) {
            for (ConsumerRecord<byte[], byte[]> record : readCommittedRecords(broker, base + "-" + region)) {
                keysByTopic.computeIfAbsent(region, r -> new ArrayList<>())
                        .add(record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8));
                Row row = decoded(decoder, record);
                assertThat(row.get("region")).isEqualTo(region);
                written.add(row);
            }
        }
        List<Row> expected = new ArrayList<>(first);
        expected.addAll(second);
        assertThat(written).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(keysByTopic.get("eu")).containsExactly("c-1", null, "c-3");
        assertThat(keysByTopic.get("us")).containsExactly("c-2", "c-1");
        assertThat(new String(readCommittedRecords(broker, base + "-us").get(0).value(), StandardCharsets.UTF_8))
                .isEqualTo("{\"order_id\":2,\"customer\":\"c-2\",\"region\":\"us\",\"amount\":0.05,"
                        + "\"placed_at\":\"2026-12-06T10:00:02.002Z\",\"note\":null}");
    }

    @Test
    @SuppressWarnings("unchecked")
    void keyEncodingFormatWritesTheKeyFieldsAsARecordOfTheirOwnAndIdHeaderCopiesFieldId() throws Exception {
        Schema input = Schema.of(Field.of("id", DataType.LONG.notNull()), Field.of("region", DataType.STRING),
                Field.of("customer", DataType.STRING));
        String topic = newTopic(broker, 1);
        var sink = (AtLeastOnceSink<Row>) rowSink(input, format(new JsonFormatFactory()), Map.of("topic", topic,
                "mode", "at-least-once", "key-fields", "region,customer", "key-encoding", "format",
                "id-header", "order-id"));
        try (AtLeastOnceWriter<Row> writer = sink.createWriter(context(topic, 0, 1, 1, null))) {
            writer.write(Row.of(input, 41L, "eu", "c-1"));
            writer.write(Row.of(input, 42L, null, "c-2"));
            writer.flush();
        }
        List<ConsumerRecord<byte[], byte[]>> records = readCommittedRecords(broker, topic);
        assertThat(records).extracting(r -> new String(r.key(), StandardCharsets.UTF_8))
                .containsExactly("{\"region\":\"eu\",\"customer\":\"c-1\"}", "{\"region\":null,\"customer\":\"c-2\"}");
        assertThat(records).extracting(r -> new String(r.headers().lastHeader("order-id").value(),
                StandardCharsets.UTF_8)).containsExactly("41", "42");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theHeadersFieldBecomesTheRecordsHeadersInItsOrderAndIsLeftOutOfTheValue() throws Exception {
        Schema input = Schema.of(List.of(Field.of("id", DataType.LONG.notNull()),
                Field.of("headers", DataType.map(DataType.STRING, DataType.BYTES)), Field.of("note", DataType.STRING)),
                List.of("id"));
        Map<String, byte[]> headers = new java.util.LinkedHashMap<>();
        headers.put("trace", new byte[] {0, 1, (byte) 0xff});
        headers.put("empty", null);
        headers.put("source", "crm ü".getBytes(StandardCharsets.UTF_8));
        String topic = newTopic(broker, 1);
        var sink = (TwoPhaseCommitSink<Row, KafkaTransaction>) rowSink(input, format(new JsonFormatFactory()),
                Map.of("topic", topic, "headers-field", "headers", "transactional-id-prefix", topic));
        try (TransactionalWriter<Row, KafkaTransaction> writer = sink.createWriter(context(topic, 0, 1, 1, null))) {
            writer.abortLingering();
            KafkaTransaction open = writer.beginTransaction(1);
            writer.write(open, Row.of(input, 1L, headers, "first"));
            writer.write(open, Row.of(input, 2L, null, "no headers"));
            writer.commit(writer.preCommit(open));
        }
        List<ConsumerRecord<byte[], byte[]>> records = readCommittedRecords(broker, topic);
        assertThat(records).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                .containsExactly("{\"id\":1,\"note\":\"first\"}", "{\"id\":2,\"note\":\"no headers\"}");
        assertThat(records.get(0).headers().toArray()).extracting(h -> h.key())
                .containsExactly("trace", "empty", "source");
        assertThat(records.get(0).headers().lastHeader("trace").value()).containsExactly(0, 1, 0xff);
        assertThat(records.get(0).headers().lastHeader("empty").value()).isNull();
        assertThat(new String(records.get(0).headers().lastHeader("source").value(), StandardCharsets.UTF_8))
                .isEqualTo("crm ü");
        assertThat(records.get(1).headers().toArray()).isEmpty();

        assertThatThrownBy(() -> rowSink(ORDERS, format(new JsonFormatFactory()), Map.of("topic", "t",
                "headers-field", "note"))).isInstanceOf(OptionException.class).hasMessage("sink 'kafka': option "
                        + "'headers-field' needs a field of type map<string, bytes> or map<string, string>; 'note' is "
                        + "a string");
        assertThatThrownBy(() -> rowSink(ORDERS, format(new JsonFormatFactory()), Map.of("topic", "t",
                "headers-field", "hdrs"))).isInstanceOf(OptionException.class).hasMessageContaining("sink 'kafka': "
                        + "option 'headers-field' needs field 'hdrs', which the input does not have");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theWriteAheadModeKeepsRowsInTheCheckpointAsTheyWere() throws Exception {
        var sink = (GenericWriteAheadSink<Row>) rowSink(ORDERS, format(new JsonFormatFactory()),
                Map.of("topic", "out", "mode", "write-ahead", "key-fields", "customer"));
        Row row = order(7, "c-7", "eu", "3.10", "ü");
        var serializer = sink.recordSerializer();
        assertThat(serializer.deserialize(serializer.version(), serializer.serialize(row))).isEqualTo(row);
    }

    @Test
    @SuppressWarnings("unchecked")
    void aRecordWhoseTopicFieldIsNullFailsTheWriteNamingIt() throws Exception {
        String base = newTopic(broker, 1);
        var sink = (TwoPhaseCommitSink<Row, KafkaTransaction>) rowSink(ORDERS, format(new JsonFormatFactory()),
                Map.of("topic", base + "-{region}", "key-fields", "customer", "transactional-id-prefix", base));
        try (TransactionalWriter<Row, KafkaTransaction> writer = sink.createWriter(context(base, 0, 1, 1, null))) {
            writer.abortLingering();
            KafkaTransaction open = writer.beginTransaction(1);
            assertThatThrownBy(() -> writer.write(open, order(9, "c-9", null, "1.00", "n")))
                    .hasMessage("record with key customer=c-9 has no value in field 'region', which the topic '"
                            + base + "-{region}' needs");
            writer.abort(open);
        }
    }

    @Test
    void eventRowsInTheEventFormatAreKeyedByTheirKeyAsBefore() throws Exception {
        String topic = newTopic(broker, 1);
        @SuppressWarnings("unchecked")
        var sink = (AtLeastOnceSink<Row>) rowSink(EventRows.SCHEMA, format(new EventFormatFactory()),
                Map.of("topic", topic, "mode", "at-least-once"));
        try (AtLeastOnceWriter<Row> writer = sink.createWriter(context(topic, 0, 1, 1, null))) {
            writer.write(EventRows.toRow(new dev.onceflow.spi.record.Event("e1", "k1", "p, with comma", 3)));
            writer.flush();
        }
        ConsumerRecord<byte[], byte[]> record = readCommittedRecords(broker, topic).get(0);
        assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("k1");
        assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo(
                dev.onceflow.spi.record.EventFormat.toLine(new dev.onceflow.spi.record.Event("e1", "k1", "p, with comma", 3)));
    }

    @Test
    void whatDoesNotFitTheInputIsRefusedInOneLineNamingIt() {
        Format json = format(new JsonFormatFactory());
        assertThatThrownBy(() -> rowSink(ORDERS, format(new EventFormatFactory()), Map.of("topic", "t")))
                .isInstanceOf(OptionException.class).hasMessage("sink 'kafka': the input is not events (fields "
                        + "order_id, customer, region, amount, placed_at, note), which format 'event' writes; name a "
                        + "format such as json");
        assertThatThrownBy(() -> rowSink(ORDERS, json, Map.of("topic", "t", "key-fields", "customr")))
                .isInstanceOf(OptionException.class).hasMessage("sink 'kafka': option 'key-fields' needs field "
                        + "'customr', which the input does not have (fields: order_id, customer, region, amount, "
                        + "placed_at, note)");
        assertThatThrownBy(() -> rowSink(ORDERS, json, Map.of("topic", "t", "key-fields", "customer,region")))
                .isInstanceOf(OptionException.class).hasMessageContaining("key-encoding: format");
        assertThatThrownBy(() -> rowSink(ORDERS, json, Map.of("topic", "t", "key-fields", "customer", "key", "id")))
                .isInstanceOf(OptionException.class).hasMessageContaining("options 'key' and 'key-fields'");
        assertThatThrownBy(() -> rowSink(ORDERS, json, Map.of("topic", "t", "key", "key")))
                .isInstanceOf(OptionException.class).hasMessageContaining("needs field 'key'");
        assertThatThrownBy(() -> rowSink(ORDERS, json, Map.of("topic", "t", "id-header", "h")))
                .isInstanceOf(OptionException.class).hasMessageContaining("option 'id-header' needs field 'id'");
        assertThatThrownBy(() -> rowSink(ORDERS, json, Map.of("topic", "t-{regoin}")))
                .isInstanceOf(OptionException.class).hasMessage("sink 'kafka': topic 't-{regoin}' names {regoin}, "
                        + "which is not a field of the input (fields: order_id, customer, region, amount, placed_at, "
                        + "note)");
    }

    /** The rows of a changelog of keys 1, 2 and 3: 1 inserted and updated, 2 inserted and deleted, 3 inserted. */
    private static List<Row> changes() {
        return List.of(order(1, "c-1", "eu", "1.00", "v1"), order(2, "c-2", "us", "2.00", "v1"),
                order(1, "c-1", "eu", "1.00", "v1").withKind(RowKind.UPDATE_BEFORE),
                order(1, "c-1", "eu", "1.50", "v2").withKind(RowKind.UPDATE_AFTER),
                order(2, "c-2", "us", "2.00", "v1").withKind(RowKind.DELETE), order(3, "c-3", "eu", "3.00", "v1"));
    }

    /** Each record of {@code topic} as "key=value", the value "null" for a tombstone. */
    private static List<String> keysAndValues(String topic) {
        return readCommittedRecords(broker, topic).stream().map(record -> new String(record.key(),
                StandardCharsets.UTF_8) + "=" + (record.value() == null ? "null"
                : new String(record.value(), StandardCharsets.UTF_8))).toList();
    }

    private static final List<String> UPSERTS = List.of(
            "1={\"order_id\":1,\"customer\":\"c-1\",\"region\":\"eu\",\"amount\":1.00,"
                    + "\"placed_at\":\"2026-12-06T10:00:01.001Z\",\"note\":\"v1\"}",
            "2={\"order_id\":2,\"customer\":\"c-2\",\"region\":\"us\",\"amount\":2.00,"
                    + "\"placed_at\":\"2026-12-06T10:00:02.002Z\",\"note\":\"v1\"}",
            "1={\"order_id\":1,\"customer\":\"c-1\",\"region\":\"eu\",\"amount\":1.50,"
                    + "\"placed_at\":\"2026-12-06T10:00:01.001Z\",\"note\":\"v2\"}",
            "2=null",
            "3={\"order_id\":3,\"customer\":\"c-3\",\"region\":\"eu\",\"amount\":3.00,"
                    + "\"placed_at\":\"2026-12-06T10:00:03.003Z\",\"note\":\"v1\"}");

    /** CHG-4: keyed by the primary key, inserts and updates as the row, a delete a tombstone, no before-image. */
    @Test
    @SuppressWarnings("unchecked")
    void required_chg4_upsertWritesEachChangeAsTheRecordOfItsPrimaryKeyExactlyOnce() throws Exception {
        String topic = newTopic(broker, 1);
        var sink = (TwoPhaseCommitSink<Row, KafkaTransaction>) rowSink(ORDERS, format(new JsonFormatFactory()),
                Map.of("topic", topic, "write-mode", "upsert", "transactional-id-prefix", topic));
        try (TransactionalWriter<Row, KafkaTransaction> writer = sink.createWriter(context(topic, 0, 1, 1, null))) {
            writer.abortLingering();
            KafkaTransaction open = writer.beginTransaction(1);
            for (Row row : changes()) {
                writer.write(open, row);
            }
            writer.commit(writer.preCommit(open));
        }
        assertThat(keysAndValues(topic)).containsExactlyElementsOf(UPSERTS);
    }

    @Test
    @SuppressWarnings("unchecked")
    void required_chg4_upsertWritesTheSameRecordsAtLeastOnce() throws Exception {
        String topic = newTopic(broker, 1);
        var sink = (AtLeastOnceSink<Row>) rowSink(ORDERS, format(new JsonFormatFactory()),
                Map.of("topic", topic, "write-mode", "upsert", "mode", "at-least-once"));
        try (AtLeastOnceWriter<Row> writer = sink.createWriter(context(topic, 0, 1, 1, null))) {
            for (Row row : changes()) {
                writer.write(row);
            }
            writer.flush();
        }
        assertThat(keysAndValues(topic)).containsExactlyElementsOf(UPSERTS);
    }

    /** CHG-2: the write-ahead mode keeps a delete a delete in the checkpoint, so it is replayed as a tombstone. */
    @Test
    @SuppressWarnings("unchecked")
    void theWriteAheadModeKeepsEachRowsKindInTheCheckpoint() throws Exception {
        var sink = (GenericWriteAheadSink<Row>) rowSink(ORDERS, format(new JsonFormatFactory()),
                Map.of("topic", "out", "mode", "write-ahead", "write-mode", "upsert"));
        var serializer = sink.recordSerializer();
        for (Row row : changes()) {
            Row read = serializer.deserialize(serializer.version(), serializer.serialize(row));
            assertThat(read).isEqualTo(row);
            assertThat(read.kind()).isEqualTo(row.kind());
        }
    }

    /** CHG-3: a change that reaches an appending sink fails the write naming the sink, the kind and the key. */
    @Test
    @SuppressWarnings("unchecked")
    void required_chg3_anAppendingSinkFailsOnAChangeNamingIt() throws Exception {
        String topic = newTopic(broker, 1);
        var sink = (AtLeastOnceSink<Row>) rowSink(ORDERS, format(new JsonFormatFactory()),
                Map.of("topic", topic, "key-fields", "order_id", "mode", "at-least-once"));
        try (AtLeastOnceWriter<Row> writer = sink.createWriter(context(topic, 0, 1, 1, null))) {
            writer.write(order(1, "c-1", "eu", "1.00", "v1"));
            assertThatThrownBy(() -> writer.write(order(1, "c-1", "eu", "1.00", "v1").withKind(RowKind.DELETE)))
                    .hasMessage("sink 'kafka' appends rows, and got a DELETE record with key order_id=1; use "
                            + "write-mode upsert");
            writer.flush();
        }
        assertThat(readCommittedRecords(broker, topic)).hasSize(1);
    }

    @Test
    void upsertIsRefusedInOneLineWhereItCannotKeyByThePrimaryKey() {
        Format json = format(new JsonFormatFactory());
        Schema noKey = Schema.of(ORDERS.fields(), List.of());
        assertThatThrownBy(() -> rowSink(noKey, json, Map.of("topic", "t", "write-mode", "upsert")))
                .isInstanceOf(OptionException.class).hasMessage("sink 'kafka': write-mode upsert keys each record by "
                        + "the input's primary key, and the input has none (fields: order_id, customer, region, "
                        + "amount, placed_at, note); declare a primary-key in the source's schema, or use write-mode "
                        + "append");
        assertThatThrownBy(() -> rowSink(ORDERS, json, Map.of("topic", "t", "write-mode", "upsert",
                "key-fields", "customer")))
                .isInstanceOf(OptionException.class).hasMessage("sink 'kafka': write-mode upsert keys each record by "
                        + "the primary key (order_id), and option 'key-fields' says customer; remove key-fields");
        assertThatThrownBy(() -> rowSink(ORDERS, json, Map.of("topic", "t", "write-mode", "upsert", "key", "id")))
                .isInstanceOf(OptionException.class).hasMessage("sink 'kafka': write-mode upsert keys each record by "
                        + "the primary key, and option 'key' chooses another; remove key");
        Schema twoKeys = Schema.of(ORDERS.fields(), List.of("region", "order_id"));
        assertThatThrownBy(() -> rowSink(twoKeys, json, Map.of("topic", "t", "write-mode", "upsert")))
                .isInstanceOf(OptionException.class).hasMessageStartingWith("sink 'kafka': the primary key has 2 "
                        + "fields, and key-encoding text writes one; use key-encoding: format");
        assertThat(rowSink(ORDERS, json, Map.of("topic", "t", "write-mode", "upsert", "key-fields", "order_id")))
                .as("key-fields naming the primary key").isNotNull();
        assertThat(rowSink(twoKeys, json, Map.of("topic", "t", "write-mode", "upsert", "key-encoding", "format")))
                .as("a composite primary key encoded in the format").isNotNull();
        assertThatThrownBy(() -> factory.createSink(OptionValues.validate("sink 'kafka'", Map.of("bootstrap-servers",
                "127.0.0.1:9092", "topic", "t", "write-mode", "upsert"), factory.options())))
                .isInstanceOf(OptionException.class).hasMessage("sink 'kafka': write-mode upsert applies to rows with "
                        + "a primary key; a sink of events appends");
    }

    @Test
    void onlyTheUpsertWriteModeAcceptsAChangelog() {
        Map<String, String> base = Map.of("bootstrap-servers", "127.0.0.1:9092", "topic", "t");
        Map<String, String> upsert = new HashMap<>(base);
        upsert.put("write-mode", "upsert");
        assertThat(factory.acceptsChanges(OptionValues.validate("sink 'kafka'", upsert, factory.options()))).isTrue();
        assertThat(factory.acceptsChanges(OptionValues.validate("sink 'kafka'", base, factory.options()))).isFalse();
    }
}
