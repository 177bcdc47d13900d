package dev.onceflow.connector.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
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
                    "JdbcSink[exactly-once, url=" + url + ", table=events, user=null, columns=Columns[id=id, key=key, "
                            + "count=count, payload=payload], batchSize=1000, poolSize=4, writeMethod=COPY]");
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

    private static Map<String, String> with(String key, String value) {
        Map<String, String> raw = new HashMap<>(Map.of("url", "jdbc:postgresql://db/app", "table", "events"));
        raw.put(key, value);
        return raw;
    }

    private OptionValues validate(Map<String, String> raw) {
        return OptionValues.validate("sink 'jdbc'", raw, factory.options());
    }
}
