package dev.onceflow.connector.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.RowSink;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.sink.GenericWriteAheadSink;
import dev.onceflow.spi.sink.IdempotentSink;
import dev.onceflow.spi.sink.Sink;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Job-file options: defaults, modes, and the combinations refused before anything runs. */
class ElasticsearchSinkFactoryTest {

    private final ElasticsearchSinkFactory factory = new ElasticsearchSinkFactory();

    private Sink<?> create(Map<String, String> extra) {
        Map<String, String> raw = new LinkedHashMap<>();
        raw.put("hosts", "http://127.0.0.1:9200");
        raw.put("index", "orders");
        raw.putAll(extra);
        return factory.createSink(OptionValues.validate("sink 'elasticsearch'", raw, factory.options()));
    }

    @Test
    void idempotentByDefaultAndWriteAheadOnRequest() {
        assertThat(create(Map.of())).isInstanceOf(IdempotentSink.class);
        assertThat(create(Map.of("mode", "write-ahead"))).isInstanceOf(GenericWriteAheadSink.class);
    }

    @Test
    void autoIdsAreRefusedInTheIdempotentMode() {
        assertThatThrownBy(() -> create(Map.of("document-id", "auto"))).isInstanceOf(OptionException.class)
                .hasMessageContaining("document-id").hasMessageContaining("write-ahead");
        assertThat(create(Map.of("document-id", "auto", "mode", "write-ahead"))).isNotNull();
    }

    @Test
    void datePlaceholdersNeedTheWriteAheadMode() {
        assertThatThrownBy(() -> create(Map.of("index", "orders-{yyyy.MM.dd}"))).isInstanceOf(OptionException.class)
                .hasMessageContaining("orders-{yyyy.MM.dd}").hasMessageContaining("mode: write-ahead");
        assertThat(create(Map.of("index", "orders-{yyyy.MM.dd}", "mode", "write-ahead"))).isNotNull();
    }

    @Test
    void createNeedsRecordIds() {
        assertThatThrownBy(() -> create(Map.of("op-type", "create", "document-id", "key")))
                .isInstanceOf(OptionException.class).hasMessageContaining("op-type");
    }

    @Test
    void invalidIndexNamesAndHostsAreRefusedWithWhatIsAccepted() {
        assertThatThrownBy(() -> create(Map.of("index", "Orders"))).isInstanceOf(OptionException.class)
                .hasMessageContaining("'index'").hasMessageContaining("lower-case");
        assertThatThrownBy(() -> create(Map.of("index", "orders-{nope"))).isInstanceOf(OptionException.class);
        assertThatThrownBy(() -> create(Map.of("hosts", "127.0.0.1:9200"))).isInstanceOf(OptionException.class)
                .hasMessageContaining("http://127.0.0.1:9200");
    }

    @Test
    void secretsNeverAppearInTheSinksDescription() {
        String described = create(Map.of("username", "writer", "password", "hunter2-secret")).toString()
                + create(Map.of("api-key", "c2VjcmV0LWFwaS1rZXk=")).toString()
                + create(Map.of("tls.truststore", "/tmp/ts.p12", "tls.truststore-password", "store-secret")).toString();
        assertThat(described).contains("user writer", "api-key", "/tmp/ts.p12")
                .doesNotContain("hunter2-secret", "c2VjcmV0LWFwaS1rZXk=", "store-secret");
    }

    @Test
    void indexNamesResolveKeysAndCheckpointDates() {
        IndexName name = IndexName.parse("orders-{key}-{yyyy.MM.dd}");
        // 2026-11-29T23:59:59.999Z and one millisecond later
        assertThat(name.resolve("EU", 1_795_996_799_999L)).isEqualTo("orders-eu-2026.11.29");
        assertThat(name.resolve("EU", 1_795_996_800_000L)).isEqualTo("orders-eu-2026.11.30");
    }

    private RowSink<?> createForRows(Schema input, Map<String, String> extra) {
        Map<String, String> raw = new LinkedHashMap<>();
        raw.put("hosts", "http://127.0.0.1:9200");
        raw.put("index", "orders");
        raw.putAll(extra);
        OptionValues options = OptionValues.validate("sink 'elasticsearch'", raw, factory.options());
        return factory.createRowSink(new FixedContext(options, input));
    }

    private static final Schema ORDERS = Schema.of(Field.of("region", DataType.STRING),
            Field.of("order_id", DataType.LONG), Field.of("amount", DataType.decimal(10, 2)));

    @Test
    void rowsOfAnyFieldsAreWrittenAsRowsInBothModes() {
        RowSink<?> idempotent = createForRows(ORDERS.withPrimaryKey("region", "order_id"), Map.of());
        assertThat(idempotent.writesRows()).isTrue();
        assertThat(idempotent.sink()).isInstanceOf(IdempotentSink.class);
        assertThat(createForRows(ORDERS, Map.of("mode", "write-ahead", "document-id", "auto")).sink())
                .isInstanceOf(GenericWriteAheadSink.class);
    }

    @Test
    void eventShapedRowsWithoutAPrimaryKeyAreKeyedByTheirId() {
        Schema events = Schema.of(Field.of("id", DataType.STRING), Field.of("key", DataType.STRING),
                Field.of("count", DataType.LONG), Field.of("payload", DataType.STRING));
        assertThat(createForRows(events, Map.of()).writesRows()).isTrue();
    }

    @Test
    void documentIdsWithoutAPrimaryKeyAreRefusedNamingTheFix() {
        assertThatThrownBy(() -> createForRows(ORDERS, Map.of())).isInstanceOf(OptionException.class)
                .hasMessage("sink 'elasticsearch': document-id: id makes each document's _id from the input's "
                        + "primary key, and the input (fields region, order_id, amount) has none; declare primary-key "
                        + "in the schema, or use mode: write-ahead with document-id: auto (at-least-once)");
    }

    @Test
    void keyDocumentsAndKeyIndexesNeedAKeyFieldAndACount() {
        Schema keyed = ORDERS.withPrimaryKey("order_id");
        assertThatThrownBy(() -> createForRows(keyed, Map.of("index", "orders-{key}")))
                .isInstanceOf(OptionException.class)
                .hasMessage("sink 'elasticsearch': option 'index' (orders-{key}) takes the document's key from it, "
                        + "and the input has no field 'key'; fields: region, order_id, amount");
        assertThatThrownBy(() -> createForRows(keyed, Map.of("document-id", "key")))
                .isInstanceOf(OptionException.class).hasMessageContaining("no field 'key'");
        Schema withKey = Schema.of(Field.of("key", DataType.STRING.notNull()), Field.of("count", DataType.STRING.notNull()));
        assertThatThrownBy(() -> createForRows(withKey, Map.of("document-id", "key")))
                .isInstanceOf(OptionException.class).hasMessageContaining("field 'count', which is a string not null");
        Schema nullableKey = Schema.of(Field.of("key", DataType.STRING), Field.of("count", DataType.LONG.notNull()));
        assertThatThrownBy(() -> createForRows(nullableKey, Map.of("document-id", "key")))
                .isInstanceOf(OptionException.class).hasMessageContaining("field 'key' is a string; it must be a "
                        + "scalar type declared not null");
    }
}
