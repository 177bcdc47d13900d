package dev.onceflow.format.avro;

import dev.onceflow.spi.factory.OptionDocs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Keeps the options table of {@code docs/formats/avro.md} generated from the declarations. When an
 * option changes, run this test with {@code -Donceflow.docs.update=true} to rewrite the table.
 */
class AvroFormatDocsTest {

    @Test
    void optionsTableIsGeneratedFromTheDeclarations() throws Exception {
        OptionDocs.checkPage(Path.of("..", "..", "docs", "formats", "avro.md"), new AvroFormatFactory().options());
    }
}
