package dev.onceflow.connector.postgrescdc;

import dev.onceflow.spi.factory.OptionDocs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The options table of {@code docs/connectors/postgres-cdc.md} is generated from the declarations.
 * When an option changes, run {@code ./mvnw -pl sources/postgres-cdc -am test
 * -Dtest=PostgresCdcDocsTest -Dsurefire.failIfNoSpecifiedTests=false -Donceflow.docs.update=true}.
 */
class PostgresCdcDocsTest {

    @Test
    void theOptionsTableIsGeneratedFromTheDeclarations() throws Exception {
        OptionDocs.checkPage(Path.of("..", "..", "docs", "connectors", "postgres-cdc.md"),
                new PostgresCdcSourceFactory().options());
    }
}
