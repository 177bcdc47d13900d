package dev.onceflow.connector.file;

import dev.onceflow.spi.factory.OptionDocs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Keeps the options table of {@code docs/connectors/file.md} generated from the declarations.
 * When an option changes, run {@code ./mvnw -pl sources/file -am test -Dtest=FileSourceDocsTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Donceflow.docs.update=true} to rewrite the table.
 */
class FileSourceDocsTest {

    @Test
    void optionsTableIsGeneratedFromTheDeclarations() throws Exception {
        OptionDocs.checkPage(Path.of("..", "..", "docs", "connectors", "file.md"), new FileSourceFactory().options());
    }
}
