package dev.onceflow.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionDocs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/job-file.md's tables are {@link RuntimeSettings}' declarations, regenerated with -Donceflow.docs.update=true. */
class RuntimeSettingsDocsTest {

    private static final Path PAGE = Path.of("..", "docs", "job-file.md");

    @Test
    void theTablesOfTheRuntimeSettingsAreGeneratedFromTheDeclarations() throws Exception {
        String text = Files.readString(PAGE, StandardCharsets.UTF_8);
        String expected = withTable(withTable(text, "checkpoints", RuntimeSettings.CHECKPOINT_OPTIONS), "restart",
                RuntimeSettings.RESTART_OPTIONS);
        if (!expected.equals(text) && Boolean.getBoolean("onceflow.docs.update")) {
            Files.writeString(PAGE, expected, StandardCharsets.UTF_8);
            return;
        }
        assertThat(text).as("%s is out of date; regenerate it by running this test with -Donceflow.docs.update=true",
                PAGE.normalize()).isEqualTo(expected);
    }

    private static String withTable(String text, String name, List<Option<?>> options) {
        String begin = "<!-- " + name + ":begin -->";
        String end = "<!-- " + name + ":end -->";
        int from = text.indexOf(begin);
        int to = text.indexOf(end);
        assertThat(from).as("%s in %s", begin, PAGE).isNotNegative();
        assertThat(to).as("%s after %s in %s", end, begin, PAGE).isGreaterThan(from);
        return text.substring(0, from + begin.length()) + "\n" + OptionDocs.markdownTable(options) + text.substring(to);
    }
}
