package dev.onceflow.format.debezium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.conformance.format.TestRows;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowKind;
import dev.onceflow.spi.row.Schema;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Debezium's change events to rows of each kind and back (FMT-8), with and without the schema wrapper. */
class DebeziumJsonFormatTest {

    private static final Schema ORDERS = Schema.of(List.of(
            Field.of("id", DataType.LONG),
            Field.of("customer", DataType.STRING),
            Field.of("amount", DataType.decimal(10, 2)),
            Field.of("placed_at", DataType.TIMESTAMP),
            Field.of("paid_at", DataType.TIMESTAMP_TZ),
            Field.of("day", DataType.DATE),
            Field.of("at", DataType.TIME)), List.of("id"));

    private final DebeziumJsonFormatFactory factory = new DebeziumJsonFormatFactory();

    @Test
    void aCreateAndASnapshotReadAreInsertsOfAfter() throws Exception {
        assertThat(decode("{\"before\":null,\"after\":{\"id\":1,\"customer\":\"Zoë\",\"amount\":\"12.50\"},"
                + "\"source\":{\"connector\":\"postgresql\"},\"op\":\"c\",\"ts_ms\":1765000000000}"))
                .containsExactly(order(1, "Zoë", "12.50"));
        assertThat(decode("{\"after\":{\"id\":2,\"customer\":\"Ada\",\"amount\":3},\"op\":\"r\"}"))
                .containsExactly(order(2, "Ada", "3.00"));
    }

    @Test
    void anUpdateWithItsOldContentIsUpdateBeforeThenUpdateAfter() throws Exception {
        assertThat(decode("{\"before\":{\"id\":1,\"customer\":\"Zoë\",\"amount\":\"12.50\"},"
                + "\"after\":{\"id\":1,\"customer\":\"Zoë\",\"amount\":\"13.00\"},\"op\":\"u\"}"))
                .containsExactly(order(1, "Zoë", "12.50").withKind(RowKind.UPDATE_BEFORE),
                        order(1, "Zoë", "13.00").withKind(RowKind.UPDATE_AFTER));
    }

    /** PostgreSQL's REPLICA IDENTITY DEFAULT: an update's event has no old content. */
    @Test
    void anUpdateWithoutOldContentIsOnlyAnUpdateAfter() throws Exception {
        assertThat(decode("{\"before\":null,\"after\":{\"id\":1,\"customer\":\"Zoë\",\"amount\":\"13.00\"},"
                + "\"op\":\"u\"}")).containsExactly(order(1, "Zoë", "13.00").withKind(RowKind.UPDATE_AFTER));
    }

    /** REPLICA IDENTITY DEFAULT: a delete's old content holds the key, the other columns null. */
    @Test
    void aDeleteIsADeleteOfBefore() throws Exception {
        assertThat(decode("{\"before\":{\"id\":7,\"customer\":null,\"amount\":null},\"after\":null,\"op\":\"d\"}"))
                .containsExactly(Row.of(ORDERS, 7L, null, null, null, null, null, null).withKind(RowKind.DELETE));
    }

    @Test
    void aTombstoneAfterADeleteIsNoRow() throws Exception {
        assertThat(decoder(false).decodeAbsent()).isEmpty();
    }

    @Test
    void aReaderOfOneRowPerRecordIsRefusedAnUpdateOfTwo() {
        assertThatThrownBy(() -> decoder(false).decode(utf8("{\"before\":{\"id\":1},\"after\":{\"id\":1},\"op\":\"u\"}")))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessage("the change event holds 2 rows, and this reader takes one per record");
    }

    /** Kafka Connect's JsonConverter with schemas.enable=true, as Debezium's PostgreSQL connector writes it. */
    @Test
    void withTheSchemaTypedValuesAreReadAsTheSchemaNamesThem() throws Exception {
        String schema = """
                {"type":"struct","name":"shop.public.orders.Envelope","fields":[
                 {"type":"struct","optional":true,"field":"before","name":"shop.public.orders.Value","fields":%s},
                 {"type":"struct","optional":true,"field":"after","name":"shop.public.orders.Value","fields":%s},
                 {"type":"struct","optional":false,"field":"source","fields":[]},
                 {"type":"string","optional":false,"field":"op"},
                 {"type":"int64","optional":true,"field":"ts_ms"}]}""".formatted(COLUMNS, COLUMNS);
        String payload = "{\"before\":{\"id\":1,\"customer\":\"Zoë\",\"amount\":\"+x4=\",\"placed_at\":-1,"
                + "\"paid_at\":\"2026-12-06T08:00:00.5+01:00\",\"day\":0,\"at\":0,\"notes\":{\"a\":1}},"
                + "\"after\":{\"id\":1,\"customer\":\"Zoë\",\"amount\":\"BOI=\",\"placed_at\":1796544000123456,"
                + "\"paid_at\":\"2026-12-06T08:00:00.123456Z\",\"day\":20793,\"at\":86399999999,\"notes\":\"{}\"},"
                + "\"source\":{},\"op\":\"u\",\"ts_ms\":1796544000200}";
        List<Row> rows = decoder(true).decodeRows(utf8("{\"schema\":" + schema + ",\"payload\":" + payload + "}"));
        assertThat(rows).containsExactly(
                Row.of(ORDERS, 1L, "Zoë", new BigDecimal("-12.50"), LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000),
                        Instant.parse("2026-12-06T07:00:00.5Z"), LocalDate.of(1970, 1, 1), LocalTime.MIDNIGHT)
                        .withKind(RowKind.UPDATE_BEFORE),
                Row.of(ORDERS, 1L, "Zoë", new BigDecimal("12.50"), LocalDateTime.of(2026, 12, 6, 8, 0, 0, 123_456_000),
                        Instant.parse("2026-12-06T08:00:00.123456Z"), LocalDate.of(2026, 12, 6),
                        LocalTime.of(23, 59, 59, 999_999_000)).withKind(RowKind.UPDATE_AFTER));
    }

    private static final String COLUMNS = """
            [{"type":"int64","optional":false,"field":"id"},
             {"type":"string","optional":true,"field":"customer"},
             {"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,
              "parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"amount"},
             {"type":"int64","optional":true,"name":"io.debezium.time.MicroTimestamp","version":1,"field":"placed_at"},
             {"type":"string","optional":true,"name":"io.debezium.time.ZonedTimestamp","version":1,"field":"paid_at"},
             {"type":"int32","optional":true,"name":"io.debezium.time.Date","version":1,"field":"day"},
             {"type":"int64","optional":true,"name":"io.debezium.time.MicroTime","version":1,"field":"at"},
             {"type":"struct","optional":true,"name":"io.debezium.data.VariableScaleDecimal","field":"notes"}]""";

    @Test
    void withTheSchemaAnUnsupportedTypeOfAFieldIsRefusedByName() {
        assertThat(refusalOfAfter(Field.of("notes", DataType.STRING), "{\"id\":1,\"notes\":{\"scale\":2,\"value\":\"BOI=\"}}"))
                .startsWith("field 'notes': Debezium type 'io.debezium.data.VariableScaleDecimal' (struct) "
                        + "is not supported");
    }

    @Test
    void withTheSchemaATypedValueIntoAFieldOfAnotherTypeIsRefused() {
        assertThat(refusalOfAfter(Field.of("day", DataType.TIMESTAMP), "{\"id\":1,\"day\":3}"))
                .isEqualTo("field 'day': Debezium type 'io.debezium.time.Date' reads into a date field, not timestamp");
    }

    @Test
    void schemaIncludeTrueRefusesAnEventWithoutTheWrapper() {
        assertThatThrownBy(() -> decoder(true).decodeRows(utf8("{\"after\":{\"id\":1},\"op\":\"c\"}")))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessage("the event is not in a {schema, payload} wrapper, which schema-include: true expects");
    }

    @Test
    void aSchemaWithoutAPrimaryKeyIsRefused() {
        Schema keyless = Schema.of(Field.of("id", DataType.LONG));
        String expected = "format 'debezium-json' reads and writes changes, which name rows by primary key, and "
                + "row<id long> has none; declare primary-key: in the schema";
        assertThatThrownBy(() -> factory.createDecoder(keyless, options(Map.of()))).isInstanceOf(OptionException.class)
                .hasMessage(expected);
        assertThatThrownBy(() -> factory.createEncoder(keyless, options(Map.of()))).isInstanceOf(OptionException.class)
                .hasMessage(expected);
    }

    @Test
    void schemaIncludeIsRefusedForWriting() {
        assertThatThrownBy(() -> factory.createEncoder(ORDERS, options(Map.of("schema-include", "true"))))
                .isInstanceOf(OptionException.class).hasMessageContaining("option 'schema-include' is for reading");
    }

    @Test
    void eventsAreWrittenInDebeziumsShape() {
        RowEncoder encoder = factory.createEncoder(ORDERS, options(Map.of()));
        Row before = order(1, "Zoë", "12.50").withKind(RowKind.UPDATE_BEFORE);
        Row after = order(1, "Zoë", "13.00").withKind(RowKind.UPDATE_AFTER);
        String a = "{\"id\":1,\"customer\":\"Zoë\",\"amount\":12.50,\"placed_at\":null,\"paid_at\":null,\"day\":null,"
                + "\"at\":null}";
        String b = a.replace("12.50", "13.00");
        assertThat(text(encoder.encode(order(1, "Zoë", "12.50")))).isEqualTo("{\"before\":null,\"after\":" + a
                + ",\"op\":\"c\"}");
        assertThat(encoder.encode(before)).as("an update's old content waits for its new content").isNull();
        assertThat(text(encoder.encode(after))).isEqualTo("{\"before\":" + a + ",\"after\":" + b + ",\"op\":\"u\"}");
        assertThat(text(encoder.encode(after))).as("no old content at hand")
                .isEqualTo("{\"before\":null,\"after\":" + b + ",\"op\":\"u\"}");
        encoder.encode(order(2, "Ada", "1.00").withKind(RowKind.UPDATE_BEFORE));
        assertThat(text(encoder.encode(after))).as("the old content of another key is not this update's")
                .isEqualTo("{\"before\":null,\"after\":" + b + ",\"op\":\"u\"}");
        assertThat(text(encoder.encode(after.withKind(RowKind.DELETE))))
                .isEqualTo("{\"before\":" + b + ",\"after\":null,\"op\":\"d\"}");
    }

    /**
     * FMT-1 over every kind and type: each row of every type (nulls, unicode, decimals, timestamps,
     * extremes) inserted, updated with its old content, updated without, and deleted, decodes from
     * the written events to the same changelog.
     */
    @Test
    void everyKindOfEveryTypeRoundTrips() throws Exception {
        List<Row> changelog = new ArrayList<>();
        List<Row> all = TestRows.all();
        for (int i = 0; i < all.size(); i++) {
            Row row = all.get(i);
            Row other = all.get((i + 1) % all.size()).with(0, row.get(0));
            changelog.add(row);
            changelog.add(row.withKind(RowKind.UPDATE_BEFORE));
            changelog.add(other.withKind(RowKind.UPDATE_AFTER));
            changelog.add(row.withKind(RowKind.UPDATE_AFTER));
            changelog.add(row.withKind(RowKind.DELETE));
        }
        RowEncoder encoder = factory.createEncoder(TestRows.EVERY_TYPE, options(Map.of()));
        RowDecoder decoder = factory.createDecoder(TestRows.EVERY_TYPE, options(Map.of()));
        List<Row> decoded = new ArrayList<>();
        int records = 0;
        for (Row row : changelog) {
            byte[] event = encoder.encode(row);
            if (event != null) {
                records++;
                decoded.addAll(decoder.decodeRows(event, 0, event.length));
            }
        }
        assertThat(decoded).isEqualTo(changelog);
        assertThat(records).as("an update's two rows are one event").isEqualTo(4 * all.size());
    }

    /**
     * Why a create event whose {@code after} is {@code after}, wrapped with the {@link #COLUMNS}
     * schema, is malformed for a schema of {@code id} and {@code field}.
     */
    private String refusalOfAfter(Field field, String after) {
        Schema schema = Schema.of(List.of(Field.of("id", DataType.LONG), field), List.of("id"));
        RowDecoder decoder = factory.createDecoder(schema, options(Map.of("schema-include", "true")));
        String event = "{\"schema\":{\"fields\":[{\"field\":\"after\",\"fields\":" + COLUMNS + "}]},"
                + "\"payload\":{\"after\":" + after + ",\"op\":\"c\"}}";
        return assertThatThrownBy(() -> decoder.decodeRows(utf8(event))).isInstanceOf(MalformedRecordException.class)
                .actual().getMessage();
    }

    private List<Row> decode(String event) throws MalformedRecordException {
        return decoder(false).decodeRows(utf8(event));
    }

    private RowDecoder decoder(boolean schemaInclude) {
        return factory.createDecoder(ORDERS, options(Map.of("schema-include", Boolean.toString(schemaInclude))));
    }

    private OptionValues options(Map<String, String> raw) {
        return OptionValues.validate("format 'debezium-json'", raw, factory.options());
    }

    private static Row order(long id, String customer, String amount) {
        return Row.of(ORDERS, id, customer, new BigDecimal(amount), null, null, null, null);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
