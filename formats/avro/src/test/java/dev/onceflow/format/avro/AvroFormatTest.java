package dev.onceflow.format.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.conformance.format.TestRows;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Conversions;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the avro format writes and reads beyond the conformance suite: the type mapping of
 * {@code docs/formats/avro.md} against Apache Avro's own reader and writer, the Confluent header,
 * and the refusal of schemas and options it cannot use.
 */
class AvroFormatTest {

    private static final String ORDERS_AVSC = "src/test/resources/orders.avsc";

    private final AvroFormatFactory factory = new AvroFormatFactory();

    private OptionValues options(Map<String, String> raw) {
        return OptionValues.validate("format 'avro'", raw, factory.options());
    }

    private Row roundTrip(Row row, Map<String, String> raw) throws MalformedRecordException {
        byte[] bytes = factory.createEncoder(row.schema(), options(raw)).encode(row);
        return factory.createDecoder(row.schema(), options(raw)).decode(bytes);
    }

    /** Avro's generic model with the conversions of every logical type the mapping uses, as an application would use it. */
    private static GenericData avroWithConversions() {
        GenericData data = new GenericData();
        data.addLogicalTypeConversion(new Conversions.DecimalConversion());
        data.addLogicalTypeConversion(new TimeConversions.DateConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimeMillisConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimeMicrosConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimestampNanosConversion());
        data.addLogicalTypeConversion(new TimeConversions.LocalTimestampMicrosConversion());
        return data;
    }

    private static byte[] avroWrites(org.apache.avro.Schema schema, GenericRecord record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema, avroWithConversions()).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private static GenericRecord avroReads(org.apache.avro.Schema schema, byte[] bytes) throws IOException {
        GenericData data = avroWithConversions();
        return new GenericDatumReader<GenericRecord>(schema, schema, data)
                .read(null, DecoderFactory.get().binaryDecoder(bytes, null));
    }

    private static org.apache.avro.Schema ordersAvsc() throws IOException {
        return new org.apache.avro.Schema.Parser().parse(Files.readString(Path.of(ORDERS_AVSC)));
    }

    // --- a hand-written schema file, and Avro's own writer and reader ---

    @Test
    void aSchemaFileFixesTheRowSchemaAsTheTypeMappingSays() {
        Schema schema = factory.schema(options(Map.of("schema-file", ORDERS_AVSC))).orElseThrow();

        assertThat(schema.toString()).isEqualTo("row<order_id long not null, customer string not null, "
                + "amount decimal(10, 2) not null, discount decimal(12, 3), status string not null, "
                + "placed timestamptz not null, placed_local timestamp not null, ship_day date, cutoff time not null, "
                + "checksum bytes not null, "
                + "items array<row<sku string not null, qty int not null, price double> not null> not null, "
                + "attributes map<string, string> not null, note string, ratio float not null, paid boolean not null, "
                + "raw bytes not null, precise timestamptz not null>");
    }

    /** The order of orders.avsc as a row of the schema the file fixes. */
    private Row expectedOrder() {
        Schema schema = factory.schema(options(Map.of("schema-file", ORDERS_AVSC))).orElseThrow();
        Schema item = schema.field("items").orElseThrow().type().elementType().schema();
        Map<String, String> attributes = new LinkedHashMap<>();
        attributes.put("gift", "yes 🎁");
        attributes.put("wrap", null);
        return Row.of(schema, 42L, "Zoë 😀", new BigDecimal("1234.50"), new BigDecimal("-0.125"), "PAID",
                Instant.parse("1969-07-20T20:17:40.123Z"), LocalDateTime.of(1899, 12, 31, 23, 59, 59, 999_999_000),
                null, LocalTime.of(17, 30, 0, 250_000_000), new byte[] {1, 2, 3, 4},
                List.of(Row.of(item, "sku-1", 2, 9.99), Row.of(item, "sku-2", 1, null)), attributes, null, 0.5f, true,
                new byte[] {0, 10, 13}, Instant.parse("2026-12-06T12:00:00.123456789Z"));
    }

    /** The same order as Avro's generic record, with Java time and BigDecimal values that Avro's conversions write. */
    private static GenericRecord avroOrder(org.apache.avro.Schema avsc) {
        org.apache.avro.Schema itemSchema = avsc.getField("items").schema().getElementType();
        GenericRecord first = new GenericData.Record(itemSchema);
        first.put("sku", "sku-1");
        first.put("qty", 2);
        first.put("price", 9.99);
        GenericRecord second = new GenericData.Record(itemSchema);
        second.put("sku", "sku-2");
        second.put("qty", 1);
        second.put("price", null);
        Map<String, String> attributes = new LinkedHashMap<>();
        attributes.put("gift", "yes 🎁");
        attributes.put("wrap", null);
        GenericRecord order = new GenericData.Record(avsc);
        order.put("order_id", 42L);
        order.put("customer", "Zoë 😀");
        order.put("amount", new BigDecimal("1234.50"));
        order.put("discount", new BigDecimal("-0.125"));
        order.put("status", new GenericData.EnumSymbol(avsc.getField("status").schema(), "PAID"));
        order.put("placed", Instant.parse("1969-07-20T20:17:40.123Z"));
        order.put("placed_local", LocalDateTime.of(1899, 12, 31, 23, 59, 59, 999_999_000));
        order.put("ship_day", null);
        order.put("cutoff", LocalTime.of(17, 30, 0, 250_000_000));
        order.put("checksum", new GenericData.Fixed(avsc.getField("checksum").schema(), new byte[] {1, 2, 3, 4}));
        order.put("items", List.of(first, second));
        order.put("attributes", attributes);
        order.put("note", null);
        order.put("ratio", 0.5f);
        order.put("paid", true);
        order.put("raw", java.nio.ByteBuffer.wrap(new byte[] {0, 10, 13}));
        order.put("precise", Instant.parse("2026-12-06T12:00:00.123456789Z"));
        return order;
    }

    @Test
    void readsWhatAvrosOwnWriterWroteInAHandWrittenSchema() throws Exception {
        byte[] written = avroWrites(ordersAvsc(), avroOrder(ordersAvsc()));

        Row row = factory.createDecoder(expectedOrder().schema(), options(Map.of("schema-file", ORDERS_AVSC)))
                .decode(written);

        assertThat(row).isEqualTo(expectedOrder());
    }

    @Test
    void writesTheBytesAvrosOwnWriterWritesAndAvrosReaderReadsThem() throws Exception {
        byte[] ours = factory.createEncoder(expectedOrder().schema(), options(Map.of("schema-file", ORDERS_AVSC)))
                .encode(expectedOrder());

        assertThat(ours).isEqualTo(avroWrites(ordersAvsc(), avroOrder(ordersAvsc())));
        GenericRecord read = avroReads(ordersAvsc(), ours);
        assertThat(read.get("discount")).isEqualTo(new BigDecimal("-0.125"));
        assertThat(read.get("placed")).isEqualTo(Instant.parse("1969-07-20T20:17:40.123Z"));
        assertThat(read.get("status").toString()).isEqualTo("PAID");
        assertThat(read.get("precise")).isEqualTo(Instant.parse("2026-12-06T12:00:00.123456789Z"));
    }

    @Test
    void avrosReaderReadsEveryTypeInTheDerivedSchema() throws Exception {
        Row row = TestRows.full(1);
        byte[] ours = factory.createEncoder(TestRows.EVERY_TYPE, options(Map.of())).encode(row);

        GenericRecord read = avroReads(AvroSchemas.toAvro(TestRows.EVERY_TYPE), ours);

        assertThat(read.get("id")).isEqualTo(1L);
        assertThat(read.get("flag")).isEqualTo(true);
        assertThat(read.get("small")).isEqualTo(Integer.MIN_VALUE);
        assertThat(read.get("ratio")).isEqualTo(1.5f);
        assertThat(read.get("score")).isEqualTo(-0.1);
        assertThat(read.get("amount")).isEqualTo(new BigDecimal("-1234567890123456789012345678.0123456789"));
        assertThat(read.get("name").toString()).isEqualTo(row.get("name"));
        assertThat(((java.nio.ByteBuffer) read.get("blob")).array()).isEqualTo(row.get("blob"));
        assertThat(read.get("day")).isEqualTo(LocalDate.of(1969, 12, 31));
        assertThat(read.get("at_time")).isEqualTo(LocalTime.of(23, 59, 58, 123_456_000));
        assertThat(read.get("local_ts")).isEqualTo(LocalDateTime.of(2026, 12, 6, 10, 0, 0, 1_000));
        assertThat(read.get("instant")).isEqualTo(Instant.parse("1970-01-01T00:00:00.000001Z"));
        assertThat(read.get("item").toString()).isEqualTo("{\"sku\": \"sku-1\", \"qty\": 3}");
        assertThat(read.get("tags").toString()).isEqualTo("[a, null, ]");
        Map<String, Object> counts = new HashMap<>();
        ((Map<?, ?>) read.get("counts")).forEach((k, v) -> counts.put(k.toString(), v));
        assertThat(counts).containsOnlyKeys("zeta", "älpha, \"quoted\"", "none").containsEntry("zeta", 26L)
                .containsEntry("none", null);
    }

    @Test
    void theDerivedSchemaNamesNestedRecordsAfterTheirFieldAndMakesNullableFieldsUnionsWithDefaultNull() {
        Schema schema = Schema.of(Field.of("id", DataType.LONG.notNull()),
                Field.of("item", DataType.row(Field.of("sku", DataType.STRING.notNull()))));

        assertThat(AvroSchemas.toAvro(schema).toString()).isEqualTo("{\"type\":\"record\",\"name\":\"Row\","
                + "\"namespace\":\"onceflow\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"item\","
                + "\"type\":[\"null\",{\"type\":\"record\",\"name\":\"item\",\"namespace\":\"onceflow.Row\","
                + "\"fields\":[{\"name\":\"sku\",\"type\":\"string\"}]}],\"default\":null}]}");
        assertThat(AvroSchemas.toRowSchema(AvroSchemas.toAvro(TestRows.EVERY_TYPE)).fields())
                .as("the derived schema maps back to the row schema").isEqualTo(TestRows.EVERY_TYPE.fields());
    }

    @Test
    void valuesTheAvroTypeCannotHoldFailTheWriteNamingTheFieldRatherThanChangeTheValue() {
        Row order = expectedOrder();
        var encoder = factory.createEncoder(order.schema(), options(Map.of("schema-file", ORDERS_AVSC)));

        assertThatThrownBy(() -> encoder.encode(order.with(order.schema().position("status"), "LOST")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("format 'avro': field 'status': 'LOST' is not a symbol of enum shop.Status");
        assertThatThrownBy(() -> encoder.encode(order.with(order.schema().position("checksum"), new byte[3])))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("format 'avro': field 'checksum': 3 bytes for fixed shop.Crc of 4 bytes");
        Schema times = Schema.of(Field.of("day", DataType.DATE), Field.of("at", DataType.TIMESTAMP_TZ));
        var derived = factory.createEncoder(times, options(Map.of()));
        assertThatThrownBy(() -> derived.encode(Row.of(times, LocalDate.MAX, null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("format 'avro': field 'day': +999999999-12-31 is beyond the range of Avro's date");
        assertThatThrownBy(() -> derived.encode(Row.of(times, null, Instant.MAX)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("format 'avro': field 'at': +1000000000-12-31T23:59:59.999999999Z is beyond the range of "
                        + "timestamp-micros");
    }

    // --- round trips at the edges of each type ---

    private static final Schema ITEM = Schema.of(Field.of("sku", DataType.STRING.notNull()), Field.of("qty", DataType.INT));
    private static final Schema EDGES = Schema.of(
            Field.of("money", DataType.decimal(5, 2)),
            Field.of("whole", DataType.decimal(38, 0)),
            Field.of("at", DataType.TIMESTAMP_TZ),
            Field.of("local", DataType.TIMESTAMP),
            Field.of("day", DataType.DATE),
            Field.of("time", DataType.TIME),
            Field.of("text", DataType.STRING),
            Field.of("order", DataType.row(Field.of("item", DataType.row(ITEM)), Field.of("note", DataType.STRING))),
            Field.of("items", DataType.array(DataType.row(ITEM))),
            Field.of("matrix", DataType.array(DataType.array(DataType.INT.notNull()))),
            Field.of("by_name", DataType.map(DataType.STRING, DataType.array(DataType.STRING))),
            Field.of("item_by_name", DataType.map(DataType.STRING, DataType.row(ITEM).notNull())));

    @Test
    void valuesAtTheEdgesOfEachTypeRoundTrip() throws Exception {
        Map<String, List<String>> byName = new LinkedHashMap<>();
        byName.put("", List.of());
        byName.put("ünï ✓ 😀", Arrays.asList("x", null));
        byName.put("none", null);
        List<Row> rows = List.of(
                Row.of(EDGES, new BigDecimal("-0.01"), new BigDecimal("-" + "9".repeat(38)),
                        Instant.parse("1969-12-31T23:59:59.999999Z"), LocalDateTime.of(1900, 1, 1, 0, 0, 0, 1_000),
                        LocalDate.of(1, 1, 1), LocalTime.of(23, 59, 59, 999_999_000), "𝄞 \u0000 \n",
                        Row.of(EDGES.field(7).type().schema(), Row.of(ITEM, "a", -1), null),
                        Arrays.asList(Row.of(ITEM, "b", null), null), List.of(List.of(1, 2), List.of()), byName,
                        Map.of("k", Row.of(ITEM, "c", 3))),
                Row.of(EDGES, new BigDecimal("999.99"), BigDecimal.ZERO, Instant.parse("1900-01-01T00:00:00Z"),
                        LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000), LocalDate.of(1970, 1, 1),
                        LocalTime.MIDNIGHT, "", Row.of(EDGES.field(7).type().schema(), null, ""), List.of(), List.of(),
                        Map.of(), Map.of()),
                Row.of(EDGES, new Object[EDGES.size()]));

        for (Row row : rows) {
            assertThat(roundTrip(row, Map.of())).as("plain").isEqualTo(row);
            assertThat(roundTrip(row, Map.of("wire-format", "confluent", "schema-id", "2147483647")))
                    .as("confluent").isEqualTo(row);
        }
    }

    @Test
    void timesAreCutToMicrosecondsTowardThePast() throws Exception {
        Schema schema = Schema.of(Field.of("time", DataType.TIME), Field.of("local", DataType.TIMESTAMP),
                Field.of("at", DataType.TIMESTAMP_TZ));
        Row row = Row.of(schema, LocalTime.of(12, 0, 0, 123_456_789), LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_999),
                Instant.parse("1969-12-31T23:59:59.999999999Z"));

        assertThat(roundTrip(row, Map.of())).isEqualTo(Row.of(schema, LocalTime.of(12, 0, 0, 123_456_000),
                LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000), Instant.parse("1969-12-31T23:59:59.999999Z")));
    }

    @Test
    void equalRowsWithNaNsOfOtherBitsEncodeToEqualBytes() {
        Schema schema = Schema.of(Field.of("f", DataType.FLOAT), Field.of("d", DataType.DOUBLE));
        var encoder = factory.createEncoder(schema, options(Map.of()));
        Row canonical = Row.of(schema, Float.NaN, Double.NaN);
        Row other = Row.of(schema, Float.intBitsToFloat(0x7fc00001), Double.longBitsToDouble(0x7ff8000000000001L));

        assertThat(other).isEqualTo(canonical);
        assertThat(encoder.encode(other)).isEqualTo(encoder.encode(canonical));
    }

    // --- the wire formats ---

    private static final Schema SMALL = Schema.of(Field.of("id", DataType.LONG.notNull()), Field.of("name", DataType.STRING));

    @Test
    void plainIsTheDatumAloneAndConfluentPutsMagicByteAndSchemaIdBeforeIt() {
        Row row = Row.of(SMALL, 1L, "a");

        assertThat(factory.createEncoder(SMALL, options(Map.of())).encode(row))
                .as("long 1 zig-zag, union branch 1, string length 1, 'a'").containsExactly(2, 2, 2, 'a');
        assertThat(factory.createEncoder(SMALL, options(Map.of("wire-format", "confluent", "schema-id", "258")))
                .encode(row)).containsExactly(0, 0, 0, 1, 2, 2, 2, 2, 'a');
    }

    private void assertConfluentRecordRefused(byte[] record, String message) {
        var decoder = factory.createDecoder(SMALL, options(Map.of("wire-format", "confluent", "schema-id", "258")));
        assertThatThrownBy(() -> decoder.decode(record)).isInstanceOf(MalformedRecordException.class)
                .hasMessage(message);
    }

    @Test
    void confluentRecordsWithAWrongHeaderAreMalformed() {
        assertConfluentRecordRefused(new byte[] {1, 0, 0, 1, 2, 2, 0}, "the record starts with byte 0x01, not the "
                + "magic byte 0x00 of wire-format confluent");
        assertConfluentRecordRefused(new byte[] {0, 0, 0, 1, 3, 2, 0}, "the record carries schema id 259, but option "
                + "'schema-id' is 258");
        assertConfluentRecordRefused(new byte[] {0, -1, -1, -1, -1, 2, 0}, "the record carries schema id 4294967295, "
                + "but option 'schema-id' is 258");
        assertConfluentRecordRefused(new byte[] {0, 0, 1, 2}, "a record of 4 bytes is shorter than the 5-byte header "
                + "of wire-format confluent (byte 0, then the 4-byte schema id)");
        assertConfluentRecordRefused(new byte[] {0, 0, 0, 1, 2}, "field 'id': the record ends inside a value");
    }

    @Test
    void confluentNeedsASchemaIdAndPlainRefusesOne() {
        assertThatThrownBy(() -> factory.schema(options(Map.of("wire-format", "confluent"))))
                .isInstanceOf(OptionException.class).hasMessage("format 'avro': wire-format confluent needs option "
                        + "'schema-id', the id of the schema in your registry (no registry is asked)");
        assertThatThrownBy(() -> factory.createEncoder(SMALL, options(Map.of("schema-id", "3"))))
                .isInstanceOf(OptionException.class).hasMessageStartingWith("format 'avro': option 'schema-id' is only "
                        + "for wire-format confluent");
        assertThatThrownBy(() -> options(Map.of("wire-format", "confluent", "schema-id", "-1")))
                .isInstanceOf(OptionException.class).hasMessageContaining("option 'schema-id' has value '-1'");
    }

    // --- schemas the format refuses ---

    private void assertSchemaFileRefused(String path, String message) {
        assertThatThrownBy(() -> factory.schema(options(Map.of("schema-file", path))))
                .isInstanceOf(OptionException.class).hasMessage(message);
    }

    @Test
    void aMissingSchemaFileIsRefusedWithTheOtherOptions() {
        assertThatThrownBy(() -> options(Map.of("schema-file", "src/test/resources/nowhere.avsc")))
                .isInstanceOf(OptionException.class)
                .hasMessage("format 'avro': option 'schema-file' has value 'src/test/resources/nowhere.avsc', which is "
                        + "not an existing file; expected the path of an Avro schema file (.avsc) holding a record");
    }

    @Test
    void schemaFilesThatAreNotAvroOrHaveNoRowTypeAreRefusedInOneLineNamingTheField() {
        assertSchemaFileRefused("src/test/resources/union.avsc", "format 'avro': option 'schema-file' "
                + "src/test/resources/union.avsc: field 'choice': a union of null, int, string; only a union of null "
                + "and one other type maps to a field");
        assertSchemaFileRefused("src/test/resources/recursive.avsc", "format 'avro': option 'schema-file' "
                + "src/test/resources/recursive.avsc: field 'next': record Node contains itself; rows cannot nest "
                + "without end");
        assertSchemaFileRefused("src/test/resources/wide-decimal.avsc", "format 'avro': option 'schema-file' "
                + "src/test/resources/wide-decimal.avsc: field 'amount': decimal of precision 40; at most 38 digits "
                + "are supported");
        assertSchemaFileRefused("src/test/resources/not-a-record.avsc", "format 'avro': option 'schema-file' "
                + "src/test/resources/not-a-record.avsc: the schema is string, not a record");
        assertThatThrownBy(() -> factory.schema(options(Map.of("schema-file", "src/test/resources/broken.avsc"))))
                .isInstanceOf(OptionException.class)
                .hasMessageStartingWith("format 'avro': option 'schema-file' src/test/resources/broken.avsc: not an "
                        + "Avro schema: ")
                .hasMessageNotContaining("\n");
    }

    @Test
    void rowsOfOtherFieldsThanTheSchemaFilesAreRefusedNamingTheField(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("small.avsc");
        Files.writeString(file, AvroSchemas.toAvro(SMALL).toString());
        Schema other = Schema.of(Field.of("id", DataType.LONG.notNull()), Field.of("name", DataType.BYTES));

        assertThatThrownBy(() -> factory.createEncoder(other, options(Map.of("schema-file", file.toString()))))
                .isInstanceOf(OptionException.class)
                .hasMessage("format 'avro': field 2 of the record of option 'schema-file' " + file + " is 'name string', "
                        + "but the rows have 'name bytes'");
        assertThatThrownBy(() -> factory.createDecoder(Schema.of(Field.of("id", DataType.LONG.notNull())),
                options(Map.of("schema-file", file.toString()))))
                .isInstanceOf(OptionException.class).hasMessageContaining("is 'name string', but the rows have no such field");
        assertThat(factory.createEncoder(SMALL, options(Map.of("schema-file", file.toString()))).encode(Row.of(SMALL, 1L, "a")))
                .as("the file's schema is the derived one: the same bytes").containsExactly(2, 2, 2, 'a');
    }

    @Test
    void fieldNamesThatAreNotAvroNamesAreRefusedNamingTheField() {
        Schema schema = Schema.of(Field.of("id", DataType.LONG),
                Field.of("item", DataType.row(Field.of("order id", DataType.LONG))));

        assertThatThrownBy(() -> factory.createEncoder(schema, options(Map.of()))).isInstanceOf(OptionException.class)
                .hasMessageStartingWith("format 'avro': field 'item.order id': not an Avro name");
    }
}
