package dev.onceflow.connector.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.RowSink;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.sink.IdempotentSink;
import dev.onceflow.spi.sink.IdempotentWriter;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.testing.elasticsearch.ElasticsearchNode;
import java.math.BigDecimal;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.http.HttpHost;
import org.apache.http.util.EntityUtils;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Rows of job files as documents, against a real Elasticsearch node: every type, ids from the primary key, replays. */
class ElasticsearchRowSinkTest {

    private static ElasticsearchNode node;
    private static RestClient rest;

    @BeforeAll
    static void connect() throws Exception {
        node = ElasticsearchNode.shared();
        rest = RestClient.builder(new HttpHost(node.host(), node.port(), "http")).build();
    }

    @AfterAll
    static void disconnect() throws Exception {
        rest.close();
    }

    private static final Schema ITEM = Schema.of(Field.of("sku", DataType.STRING), Field.of("qty", DataType.INT));

    /** Every type, keyed by two strings. */
    private static final Schema ALL_TYPES = Schema.of(List.of(
            Field.of("region", DataType.STRING), Field.of("code", DataType.STRING),
            Field.of("flag", DataType.BOOLEAN), Field.of("i", DataType.INT), Field.of("l", DataType.LONG),
            Field.of("f", DataType.FLOAT), Field.of("d", DataType.DOUBLE), Field.of("amount", DataType.decimal(38, 10)),
            Field.of("text", DataType.STRING), Field.of("raw", DataType.BYTES), Field.of("day", DataType.DATE),
            Field.of("at", DataType.TIME), Field.of("local", DataType.TIMESTAMP), Field.of("instant", DataType.TIMESTAMP_TZ),
            Field.of("item", DataType.row(ITEM)), Field.of("tags", DataType.array(DataType.STRING)),
            Field.of("counts", DataType.map(DataType.LONG, DataType.DOUBLE))), List.of("region", "code"));

    private static final Row FULL = Row.of(ALL_TYPES, "eu", "full", true, -2147483648, 9223372036854775807L, 1.5f,
            0.1, new BigDecimal("1234567890123456789012345678.0123456789"), "naïve \"quoted\"\ttab\nline 😀",
            new byte[] {0, 1, 2, (byte) 0xff}, LocalDate.of(1969, 12, 31), LocalTime.of(12, 30, 5, 123_456_000),
            LocalDateTime.of(9999, 12, 31, 23, 59, 59, 5_000_000), Instant.parse("2026-12-06T11:30:05Z"),
            Row.of(ITEM, "ß-1", 3), Arrays.asList("a", null, "ü"), linked(7L, 0.25, -1L, null));

    private static final Row NULLS = Row.of(ALL_TYPES, "eu", "nulls", null, null, null, null, null, null, null, null,
            null, null, null, null, null, null, null);

    private static Map<Long, Double> linked(Long k1, Double v1, Long k2, Double v2) {
        Map<Long, Double> map = new LinkedHashMap<>();
        map.put(k1, v1);
        map.put(k2, v2);
        return map;
    }

    @SuppressWarnings("unchecked")
    private static IdempotentSink<Row> sink(String index, Schema input) {
        ElasticsearchSinkFactory factory = new ElasticsearchSinkFactory();
        OptionValues options = OptionValues.validate("test", Map.of("hosts", node.httpUri().toString(), "index", index),
                factory.options());
        RowSink<Row> sink = factory.createRowSink(new FixedContext(options, input));
        return (IdempotentSink<Row>) sink.sink();
    }

    private static void write(IdempotentSink<Row> sink, List<Row> rows, int times) throws Exception {
        try (IdempotentWriter<Row> writer = sink.createWriter(new SinkContext("job", "es-rows", 0, 1, 1,
                OptionalLong.empty(), "attempt"))) {
            for (int pass = 0; pass < times; pass++) { // a second pass is a replay after a crash
                for (Row row : rows) {
                    writer.write(row);
                }
                writer.flush();
            }
        }
    }

    /** The document's {@code _source} as Elasticsearch stored it: the bytes the sink sent. */
    private static String source(String index, String id) throws Exception {
        String path = "/" + index + "/_source/" + URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
        return EntityUtils.toString(rest.performRequest(new Request("GET", path)).getEntity(), StandardCharsets.UTF_8);
    }

    private static List<String> ids(String index) throws Exception {
        rest.performRequest(new Request("POST", "/" + index + "/_refresh"));
        Request search = new Request("GET", "/" + index + "/_search");
        search.setJsonEntity("{\"size\":100,\"_source\":false}");
        String body = EntityUtils.toString(rest.performRequest(search).getEntity(), StandardCharsets.UTF_8);
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(body).path("hits").path("hits")
                .findValuesAsText("_id");
    }

    @Test
    void everyTypeIsWrittenAsTheDocumentTableSays() throws Exception {
        String index = "rows-types-" + System.nanoTime();
        write(sink(index, ALL_TYPES), List.of(FULL, NULLS), 1);
        assertThat(source(index, "eu_full")).isEqualTo("{\"region\":\"eu\",\"code\":\"full\",\"flag\":true,"
                + "\"i\":-2147483648,\"l\":9223372036854775807,\"f\":1.5,\"d\":0.1,"
                + "\"amount\":\"1234567890123456789012345678.0123456789\","
                + "\"text\":\"naïve \\\"quoted\\\"\\ttab\\nline 😀\",\"raw\":\"AAEC/w==\",\"day\":\"1969-12-31\","
                + "\"at\":\"12:30:05.123456\",\"local\":\"9999-12-31T23:59:59.005\",\"instant\":\"2026-12-06T11:30:05Z\","
                + "\"item\":{\"sku\":\"ß-1\",\"qty\":3},\"tags\":[\"a\",null,\"ü\"],\"counts\":{\"7\":0.25,\"-1\":null}}");
        assertThat(source(index, "eu_nulls")).isEqualTo("{\"region\":\"eu\",\"code\":\"nulls\",\"flag\":null,\"i\":null,"
                + "\"l\":null,\"f\":null,\"d\":null,\"amount\":null,\"text\":null,\"raw\":null,\"day\":null,\"at\":null,"
                + "\"local\":null,\"instant\":null,\"item\":null,\"tags\":null,\"counts\":null}");
    }

    @Test
    void compositeKeysGiveEscapedIdsThatNeverCollide() throws Exception {
        String index = "rows-keys-" + System.nanoTime();
        Schema keyed = Schema.of(List.of(Field.of("a", DataType.STRING), Field.of("b", DataType.STRING),
                Field.of("n", DataType.INT)), List.of("a", "b"));
        write(sink(index, keyed), List.of(Row.of(keyed, "a", "b_c", 1), Row.of(keyed, "a_b", "c", 2),
                Row.of(keyed, "x\\", "y", 3)), 1);
        assertThat(ids(index)).containsExactlyInAnyOrder("a\\_b_c", "a_b\\_c", "x\\\\_y");
        assertThat(source(index, "a_b\\_c")).isEqualTo("{\"a\":\"a\",\"b\":\"b_c\",\"n\":1}");
        assertThat(source(index, "a\\_b_c")).isEqualTo("{\"a\":\"a_b\",\"b\":\"c\",\"n\":2}");
    }

    @Test
    void aReplayOfRowsLeavesOneDocumentPerKeyWithTheSameBytes() throws Exception {
        String index = "rows-replay-" + System.nanoTime();
        write(sink(index, ALL_TYPES), List.of(FULL, NULLS), 2);
        assertThat(ids(index)).containsExactlyInAnyOrder("eu_full", "eu_nulls");
        String first = source(index, "eu_full");
        write(sink(index, ALL_TYPES), List.of(FULL), 1);
        assertThat(source(index, "eu_full")).isEqualTo(first);
    }
}
