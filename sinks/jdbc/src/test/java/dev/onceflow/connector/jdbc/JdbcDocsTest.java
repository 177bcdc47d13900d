package dev.onceflow.connector.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.spi.factory.OptionDocs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Keeps the options table of {@code docs/connectors/jdbc.md} generated from the declarations. When
 * an option changes, run {@code ./mvnw -pl sinks/jdbc -am test -Dtest=JdbcDocsTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Donceflow.docs.update=true} to rewrite the table.
 */
class JdbcDocsTest {

    private static final Path PAGE = Path.of("..", "..", "docs", "connectors", "jdbc.md");

    @Test
    void optionsTableIsGeneratedFromTheDeclarations() throws Exception {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        String expected = OptionDocs.withTable(page, new JdbcSinkFactory().options());
        if (Boolean.getBoolean("onceflow.docs.update") && !expected.equals(page)) {
            Files.writeString(PAGE, expected, StandardCharsets.UTF_8);
            page = expected;
        }
        assertThat(page).as("%s is out of date; regenerate it with -Donceflow.docs.update=true (see this test's "
                + "javadoc)", PAGE.normalize()).isEqualTo(expected);
    }
}
