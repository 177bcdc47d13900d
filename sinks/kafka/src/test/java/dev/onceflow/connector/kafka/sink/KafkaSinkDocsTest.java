package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.factory.OptionDocs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Keeps the options table of {@code docs/connectors/kafka.md} generated from the declarations; the
 * {@code properties.*} pass-through options are described in prose there, not one row each.
 * When an option changes, run {@code ./mvnw -pl sinks/kafka -am test -Dtest=KafkaSinkDocsTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Donceflow.docs.update=true} to rewrite the table.
 */
class KafkaSinkDocsTest {

    @Test
    void optionsTableIsGeneratedFromTheDeclarations() throws Exception {
        OptionDocs.checkPage(Path.of("..", "..", "docs", "connectors", "kafka.md"),
                new KafkaSinkFactory().options().stream()
                        .filter(o -> !o.key().startsWith(KafkaSinkFactory.PROPERTIES_PREFIX)).toList());
    }
}
