package dev.onceflow.connector.kafka.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionDocs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps the sink's options table in {@code docs/connectors/kafka.md} generated from the
 * declarations; the {@code properties.*} pass-through options are described in prose there, not
 * one row each. When an option changes, run {@code ./mvnw -pl sinks/kafka -am test
 * -Dtest=KafkaSinkDocsTest -Dsurefire.failIfNoSpecifiedTests=false -Donceflow.docs.update=true}.
 */
class KafkaSinkDocsTest {

    private static final Path PAGE = Path.of("..", "..", "docs", "connectors", "kafka.md");

    @Test
    void optionsTableIsGeneratedFromTheDeclarations() throws Exception {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        List<Option<?>> options = new KafkaSinkFactory().options().stream()
                .filter(o -> !o.key().startsWith(KafkaSinkFactory.PROPERTIES_PREFIX)).toList();
        String expected = OptionDocs.withTable(page, options);
        if (Boolean.getBoolean("onceflow.docs.update") && !expected.equals(page)) {
            Files.writeString(PAGE, expected, StandardCharsets.UTF_8);
            page = expected;
        }
        assertThat(page).as("%s is out of date; regenerate it with -Donceflow.docs.update=true (see this test's "
                + "javadoc)", PAGE.normalize()).isEqualTo(expected);
    }
}
