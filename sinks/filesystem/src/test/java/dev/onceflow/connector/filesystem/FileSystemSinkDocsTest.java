package dev.onceflow.connector.filesystem;

import dev.onceflow.spi.factory.OptionDocs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Keeps the options table of {@code docs/connectors/filesystem.md} generated from the declarations.
 * When an option changes, run {@code ./mvnw -pl sinks/filesystem -am test -Dtest=FileSystemSinkDocsTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Donceflow.docs.update=true} to rewrite the table.
 */
class FileSystemSinkDocsTest {

    @Test
    void optionsTableIsGeneratedFromTheDeclarations() throws Exception {
        OptionDocs.checkPage(Path.of("..", "..", "docs", "connectors", "filesystem.md"), new FileSystemSinkFactory().options());
    }
}
