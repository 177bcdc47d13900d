package dev.onceflow.connector.elasticsearch;

import dev.onceflow.spi.factory.OptionDocs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Keeps the options table of {@code docs/connectors/elasticsearch.md} generated from the
 * declarations. When an option changes, run {@code ./mvnw -pl sinks/elasticsearch -am test
 * -Dtest=ElasticsearchDocsTest -Dsurefire.failIfNoSpecifiedTests=false -Donceflow.docs.update=true}.
 */
class ElasticsearchDocsTest {

    @Test
    void optionsTableIsGeneratedFromTheDeclarations() throws Exception {
        OptionDocs.checkPage(Path.of("..", "..", "docs", "connectors", "elasticsearch.md"),
                new ElasticsearchSinkFactory().options());
    }
}
