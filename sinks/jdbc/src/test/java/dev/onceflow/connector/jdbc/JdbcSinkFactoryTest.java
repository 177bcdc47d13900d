package dev.onceflow.connector.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.RowSink;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.record.EventRows;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Schema;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class JdbcSinkFactoryTest {

    private final JdbcSinkFactory factory = new JdbcSinkFactory();

    @Test
    void isFoundByServiceLoaderAsJdbc() {
        assertThat(ServiceLoader.load(SinkFactory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> f.identifier().equals("jdbc"))).hasSize(1);
    }

    @Test
    void createsASinkWithDefaults() {
        OptionValues values = validate(Map.of("url", "jdbc:postgresql://db:5432/app", "table", "events"));

        assertThat(values.get(JdbcSinkFactory.BATCH_SIZE)).isEqualTo(1000);
        assertThat(values.get(JdbcSinkFactory.POOL_SIZE)).isEqualTo(4);
        assertThat(factory.createSink(values)).isInstanceOf(JdbcSink.class);
    }

    @Test
    void mariaDbAndMySqlUrlsAreAcceptedAndSelectTheirDialect() {
        for (String url : List.of("jdbc:mariadb://db:3306/app", "jdbc:mysql://db/app")) {
            OptionValues values = validate(Map.of("url", url, "table", "events"));
            assertThat(factory.createSink(values)).isInstanceOf(JdbcSink.class).hasToString(
                    "JdbcSink[exactly-once, url=" + url + ", table=events, user=null, batchSize=1000, poolSize=4, "
                            + "writeMethod=COPY, columns=Columns[id=id, key=key, count=count, payload=payload]]");
            assertThat(SqlDialect.forUrl(url)).contains(MariaDbDialect.INSTANCE);
        }
        assertThat(SqlDialect.forUrl("jdbc:postgresql://db/app")).contains(PostgresDialect.INSTANCE);
    }

    @Test
    void exactlyOnceRefusesAPoolOfOneConnectionAndSaysWhy() {
        assertThatThrownBy(() -> factory.createSink(validate(with("pool-size", "1"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pool-size 1 is too small for mode exactly-once")
                .hasMessageContaining("set pool-size to 2 or more");
        assertThat(factory.createSink(validate(with("pool-size", "2")))).isInstanceOf(JdbcSink.class);
        Map<String, String> writeAhead = new HashMap<>(with("pool-size", "1"));
        writeAhead.put("mode", "write-ahead");
        assertThat(factory.createSink(validate(writeAhead))).isInstanceOf(JdbcWriteAheadSink.class);
    }

    @Test
    void eachModeMakesItsKindOfSink() {
        assertThat(factory.createSink(validate(with("mode", "exactly-once")))).isInstanceOf(JdbcSink.class);
        assertThat(factory.createSink(validate(with("mode", "write-ahead")))).isInstanceOf(JdbcWriteAheadSink.class);
        assertThat(factory.createSink(validate(with("mode", "idempotent")))).isInstanceOf(JdbcUpsertSink.class);
    }

    @Test
    void columnsMustDifferAndCommitterTableMustNotBeTheSinksTable() {
        Map<String, String> sameColumns = with("key-column", "id");
        assertThatThrownBy(() -> factory.createSink(validate(sameColumns)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("column names must differ");
        assertThatThrownBy(() -> factory.createSink(validate(with("committer-table", "events"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("committer table must differ");
    }

    @Test
    void passwordInTheUrlIsNotShownEither() {
        OptionValues values = validate(Map.of("url", "jdbc:postgresql://db/app?user=app&password=secret-456&ssl=true",
                "table", "events", "mode", "write-ahead"));

        assertThat(factory.createSink(values).toString()).contains("ssl=true").doesNotContain("secret-456");
    }

    @Test
    void passwordIsNeverShown() {
        OptionValues values = validate(Map.of("url", "jdbc:postgresql://db/app", "table", "events",
                "user", "app", "password", "secret-123"));

        assertThat(factory.createSink(values).toString()).contains("app").doesNotContain("secret-123");
    }

    @Test
    void missingRequiredOptionsAreNamed() {
        assertThatThrownBy(() -> validate(Map.of("table", "events"))).isInstanceOf(OptionException.class)
                .hasMessageContaining("missing required option 'url'");
        assertThatThrownBy(() -> validate(Map.of("url", "jdbc:postgresql://db/app")))
                .isInstanceOf(OptionException.class).hasMessageContaining("missing required option 'table'");
    }

    @Test
    void invalidValuesAreRejectedWithWhatIsAccepted() {
        assertThatThrownBy(() -> validate(Map.of("url", "jdbc:oracle:thin:@db:1521/app", "table", "events")))
                .isInstanceOf(OptionException.class)
                .hasMessageContaining("option 'url'").hasMessageContaining("jdbc:postgresql://");
        assertThatThrownBy(() -> validate(Map.of("url", "jdbc:postgresql://db/app", "table", "")))
                .isInstanceOf(OptionException.class).hasMessageContaining("option 'table'");
        assertThatThrownBy(() -> validate(Map.of("url", "jdbc:postgresql://db/app", "table", "t".repeat(64))))
                .isInstanceOf(OptionException.class).hasMessageContaining("option 'table'");
        assertThatThrownBy(() -> validate(with("batch-size", "0"))).isInstanceOf(OptionException.class)
                .hasMessageContaining("option 'batch-size' has value '0'");
        assertThatThrownBy(() -> validate(with("pool-size", "many"))).isInstanceOf(OptionException.class)
                .hasMessageContaining("option 'pool-size'");
        assertThatThrownBy(() -> validate(with("mode", "at-least-once"))).isInstanceOf(OptionException.class)
                .hasMessage("sink 'jdbc': option 'mode' has value 'at-least-once'; expected one of exactly-once, "
                        + "write-ahead, idempotent");
        assertThatThrownBy(() -> validate(with("transaction-timeout", "0s"))).isInstanceOf(OptionException.class)
                .hasMessageContaining("option 'transaction-timeout'");
        assertThatThrownBy(() -> validate(with("id-column", ""))).isInstanceOf(OptionException.class)
                .hasMessageContaining("option 'id-column'");
    }

    /** The url option repeated the whole URL on a validation error, password= included. */
    @Test
    void aWrongUrlSaysWhichPartIsWrongWithoutRepeatingIt() {
        Map<String, String> problems = new LinkedHashMap<>();
        problems.put("jdbc:sqlserver://db:1433;user=sa;password=hunter2", "is for 'jdbc:sqlserver:', a database this sink"
                + " does not write to");
        problems.put("jdbc:oracle:thin:app/hunter2@db:1521/app", "is for 'jdbc:oracle:', a database this sink does not"
                + " write to");
        problems.put("postgresql://app:hunter2@db/app", "does not start with 'jdbc:'");
        problems.put("jdbc:postgresql:app?user=app&password=hunter2", "has no '//' and host after 'jdbc:postgresql:'");
        problems.put("jdbc:mariadb://", "names no host after 'jdbc:mariadb://'");
        problems.put("jdbc:?password=hunter2", "names no database after 'jdbc:' (such as postgresql or mariadb)");

        problems.forEach((url, problem) -> assertThatThrownBy(() -> validate(Map.of("url", url, "table", "events")))
                .as(url).isInstanceOf(OptionException.class)
                .hasMessage("sink 'jdbc': option 'url' " + problem + "; expected a JDBC URL such as "
                        + SqlDialect.SUPPORTED_URLS + " (the value is not shown: it may hold a password)")
                .message().doesNotContain("hunter2"));
    }

    @Test
    void builderRejectsWhatTheOptionsReject() {
        assertThatThrownBy(() -> JdbcSink.builder("jdbc:oracle:thin:@db:1521/app", "t"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PostgreSQL");
        assertThatThrownBy(() -> JdbcSink.builder("jdbc:postgresql://db/app", "t").batchSize(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JdbcSink.builder("jdbc:postgresql://db/app", "t").poolSize(0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void inputWithAnEventsFieldsMayNameItsColumnsWithTheEventColumnOptions() {
        RowSink<?> sink = factory.createRowSink(context(EventRows.SCHEMA, with("id-column", "event_id")));

        assertThat(sink.writesRows()).isTrue();
        assertThat(sink.sink()).hasToString("JdbcSink[exactly-once, url=jdbc:postgresql://db/app, table=events, "
                + "user=null, batchSize=1000, poolSize=4, writeMethod=COPY, columns=[event_id, key, payload, count], "
                + "key=[event_id]]");
        Map<String, String> both = with("id-column", "event_id");
        both.put("columns", "key=k");
        assertThatThrownBy(() -> factory.createRowSink(context(EventRows.SCHEMA, both)))
                .isInstanceOf(OptionException.class).hasMessage("sink 'jdbc': options 'id-column' and 'columns' both "
                        + "map fields; map every field with 'columns'");
    }

    @Test
    void otherInputIsWrittenFieldByFieldIntoTheColumnsOfTheirNamesOrTheMappedOnes() {
        Schema orders = Schema.of(List.of(Field.of("order_id", DataType.LONG), Field.of("customer", DataType.STRING),
                Field.of("total", DataType.decimal(10, 2))), List.of("order_id"));
        Map<String, String> options = with("columns", " customer = customer_id ,total=Amount");
        options.put("mode", "idempotent");

        RowSink<?> sink = factory.createRowSink(context(orders, options));

        assertThat(sink.writesRows()).isTrue();
        assertThat(sink.sink()).isInstanceOf(JdbcUpsertSink.class).hasToString("JdbcUpsertSink[idempotent, "
                + "url=jdbc:postgresql://db/app, table=events, user=null, batchSize=1000, poolSize=4, writeMethod=COPY, "
                + "columns=[order_id, customer_id, Amount], key=[order_id]]");
    }

    @Test
    void whatDoesNotFitRowsIsOneLineNamingIt() {
        Schema orders = Schema.of(Field.of("order_id", DataType.LONG), Field.of("customer", DataType.STRING));
        Schema nested = Schema.of(Field.of("order_id", DataType.LONG), Field.of("items", DataType.array(DataType.STRING)));
        Map<Map<String, String>, String> problems = new LinkedHashMap<>();
        problems.put(with("id-column", "order_id"), "sink 'jdbc': option 'id-column' maps a field of events, and the "
                + "input is not events (fields order_id, customer); map fields to columns with option 'columns: "
                + "field=column, ...'");
        problems.put(with("columns", "client=customer_id"), "sink 'jdbc': option 'columns' maps field 'client', which "
                + "the input does not have; its fields: order_id, customer");
        problems.put(with("columns", "customer=order_id"), "sink 'jdbc': fields 'order_id' and 'customer' would both go "
                + "to column 'order_id'; map one of them elsewhere with option 'columns'");
        problems.put(with("mode", "idempotent"), "sink 'jdbc': mode idempotent upserts rows by their primary key, and "
                + "the input has none; declare one with 'primary-key' in the source's schema, or use mode exactly-once "
                + "or write-ahead");
        problems.forEach((options, message) -> assertThatThrownBy(() -> factory.createRowSink(context(orders, options)))
                .as(message).isInstanceOf(OptionException.class).hasMessage(message));
        assertThatThrownBy(() -> factory.createRowSink(context(nested, with("table", "t"))))
                .isInstanceOf(OptionException.class).hasMessage("sink 'jdbc': field 'items' is a array<string>; the jdbc "
                        + "sink writes fields of scalar types, one per column");
    }

    @Test
    void aColumnsOptionThatIsNotFieldColumnPairsIsRefusedWhenValidated() {
        assertThatThrownBy(() -> validate(with("columns", "a=b, c"))).isInstanceOf(OptionException.class)
                .hasMessageContaining("option 'columns'").hasMessageContaining("'c' is not a field=column pair");
        assertThatThrownBy(() -> validate(with("columns", "a=b,a=c"))).isInstanceOf(OptionException.class)
                .hasMessageContaining("field 'a' is mapped twice");
        assertThatThrownBy(() -> validate(with("create-table", "always"))).isInstanceOf(OptionException.class)
                .hasMessageContaining("expected one of if-missing, never");
    }

    private SinkFactory.Context context(Schema input, Map<String, String> raw) {
        OptionValues options = validate(raw);
        return new SinkFactory.Context() {
            @Override
            public OptionValues options() {
                return options;
            }

            @Override
            public Schema inputSchema() {
                return input;
            }

            @Override
            public java.util.Optional<dev.onceflow.spi.format.Format> format() {
                return java.util.Optional.empty();
            }
        };
    }

    private static Map<String, String> with(String key, String value) {
        Map<String, String> raw = new HashMap<>(Map.of("url", "jdbc:postgresql://db/app", "table", "events"));
        raw.put(key, value);
        return raw;
    }

    private OptionValues validate(Map<String, String> raw) {
        return OptionValues.validate("sink 'jdbc'", raw, factory.options());
    }
}
