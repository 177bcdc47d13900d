package dev.onceflow.connector.datagen;

import dev.onceflow.spi.factory.OptionDocs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The options table of the datagen section in {@code docs/connectors.md} is generated from the
 * declarations. When an option changes, run {@code ./mvnw -pl sources/datagen -am test
 * -Dtest=DatagenDocsTest -Dsurefire.failIfNoSpecifiedTests=false -Donceflow.docs.update=true}.
 */
class DatagenDocsTest {

    @Test
    void theOptionsTableIsGeneratedFromTheDeclarations() throws Exception {
        OptionDocs.checkPage(Path.of("..", "..", "docs", "connectors.md"), new DatagenSourceFactory().documentedOptions());
    }
}
