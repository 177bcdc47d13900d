package dev.onceflow.format.debezium;

import dev.onceflow.spi.factory.OptionDocs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Keeps the options table of {@code docs/formats/debezium-json.md} generated from the declarations.
 * When an option changes, run this test with {@code -Donceflow.docs.update=true} to rewrite the table.
 */
class DebeziumJsonFormatDocsTest {

    @Test
    void optionsTableIsGeneratedFromTheDeclarations() throws Exception {
        OptionDocs.checkPage(Path.of("..", "..", "docs", "formats", "debezium-json.md"),
                new DebeziumJsonFormatFactory().options());
    }
}
