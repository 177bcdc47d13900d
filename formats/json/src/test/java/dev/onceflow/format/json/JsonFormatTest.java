package dev.onceflow.format.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceflow.conformance.format.TestRows;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the json format writes and accepts beyond the round trip: the documented type mapping. */
class JsonFormatTest {

    private static final ObjectMapper JACKSON = new ObjectMapper();
    private final JsonFormatFactory factory = new JsonFormatFactory();

    private static final Schema ORDER = Schema.of(List.of(
            Field.of("order_id", DataType.LONG),
            Field.of("amount", DataType.decimal(10, 2)),
            Field.of("placed_at", DataType.TIMESTAMP_TZ),
            Field.of("ratio", DataType.DOUBLE)), List.of("order_id"));

    private OptionValues options(Map<String, String> raw) {
        return OptionValues.validate("format 'json'", raw, factory.options());
    }

    private Row decode(Schema schema, String json, Map<String, String> raw) throws MalformedRecordException {
        RowDecoder decoder = factory.createDecoder(schema, options(raw));
        return decoder.decode(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void writesTheTypeMappingThatDocsFormatsJsonShows() throws Exception {
        byte[] bytes = factory.createEncoder(TestRows.EVERY_TYPE, options(Map.of())).encode(TestRows.full(1));
        JsonNode json = JACKSON.readTree(bytes);

        assertThat(json.get("id").isIntegralNumber()).isTrue();
        assertThat(new String(bytes, StandardCharsets.UTF_8)).contains("\"amount\":-1234567890123456789012345678.0123456789,");
        assertThat(json.get("blob").asText()).isEqualTo("AP9/gAo=");
        assertThat(json.get("day").asText()).isEqualTo("1969-12-31");
        assertThat(json.get("at_time").asText()).isEqualTo("23:59:58.123456");
        assertThat(json.get("local_ts").asText()).isEqualTo("2026-12-06T10:00:00.000001");
        assertThat(json.get("instant").asText()).isEqualTo("1970-01-01T00:00:00.000001Z");
        assertThat(json.get("item").toString()).isEqualTo("{\"sku\":\"sku-1\",\"qty\":3}");
        assertThat(json.get("tags").toString()).isEqualTo("[\"a\",null,\"\"]");
        assertThat(json.get("counts").get("none").isNull()).isTrue();
        assertThat(new String(bytes, StandardCharsets.UTF_8)).startsWith("{\"id\":1,\"flag\":true,");
    }

    @Test
    void readsWhatOtherProgramsWrite() throws Exception {
        Row row = decode(ORDER, "{\"ratio\": 1e3, \"order_id\": 42, \"amount\": \"12.5\", "
                + "\"placed_at\": \"2026-12-06T11:00:00+01:00\", \"customer\": {\"name\": \"Ada\"}}", Map.of());

        assertThat(row).isEqualTo(Row.of(ORDER, 42L, new BigDecimal("12.50"), Instant.parse("2026-12-06T10:00:00Z"), 1000.0));
    }

    @Test
    void nonFiniteDoublesAreStrings() throws Exception {
        Schema schema = Schema.of(Field.of("d", DataType.DOUBLE), Field.of("f", DataType.FLOAT));
        Row row = Row.of(schema, Double.NaN, Float.NEGATIVE_INFINITY);
        byte[] bytes = factory.createEncoder(schema, options(Map.of())).encode(row);

        assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("{\"d\":\"NaN\",\"f\":\"-Infinity\"}");
        assertThat(factory.createDecoder(schema, options(Map.of())).decode(bytes)).isEqualTo(row);
    }

    @Test
    void unknownMembersAreSkippedUnlessAskedToFail() throws Exception {
        String json = "{\"order_id\": 1, \"extra\": [1, {\"deep\": true}]}";

        assertThat(decode(ORDER, json, Map.of()).get("order_id")).isEqualTo(1L);
        assertThatThrownBy(() -> decode(ORDER, json, Map.of("fail-on-unknown-fields", "true")))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessage("field 'extra': not a field of the schema (fail-on-unknown-fields is true)");
    }

    @Test
    void aLongOutOfRangeAndAFloatOutOfRangeAreRefused() {
        assertThatThrownBy(() -> decode(ORDER, "{\"order_id\": 9223372036854775808}", Map.of()))
                .hasMessage("field 'order_id': 9223372036854775808 is out of range for a long");
        assertThatThrownBy(() -> decode(Schema.of(Field.of("f", DataType.FLOAT)), "{\"f\": 1e39}", Map.of()))
                .hasMessage("field 'f': 1e39 is out of range for a float");
        assertThatThrownBy(() -> decode(Schema.of(Field.of("f", DataType.FLOAT)), "{\"f\": 1e-50}", Map.of()))
                .hasMessage("field 'f': 1e-50 is out of range for a float");
        assertThatThrownBy(() -> decode(ORDER, "{\"order_id\": 1, \"amount\": 1e-100000000}", Map.of()))
                .hasMessage("field 'amount': 1E-100000000 has more than 2 digits after the point for decimal(10, 2)");
    }
}
