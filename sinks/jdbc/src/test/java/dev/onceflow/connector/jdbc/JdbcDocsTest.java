package dev.onceflow.connector.jdbc;

import dev.onceflow.spi.factory.OptionDocs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Keeps the options table of {@code docs/connectors/jdbc.md} generated from the declarations.
 * When an option changes, run {@code ./mvnw -pl sinks/jdbc -am test -Dtest=JdbcDocsTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Donceflow.docs.update=true} to rewrite the table.
 */
class JdbcDocsTest {

    @Test
    void optionsTableIsGeneratedFromTheDeclarations() throws Exception {
        OptionDocs.checkPage(Path.of("..", "..", "docs", "connectors", "jdbc.md"), new JdbcSinkFactory().options());
    }
}
