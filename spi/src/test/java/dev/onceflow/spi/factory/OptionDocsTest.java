package dev.onceflow.spi.factory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class OptionDocsTest {

    enum Mode { EXACTLY_ONCE, AT_LEAST_ONCE }

    @Test
    void rendersOneRowPerOptionWithDefaultsSpelledAsInJobFiles() {
        List<Option<?>> options = List.of(
                Option.stringOption("url").required().description("Where | to write."),
                Option.enumOption("mode", Mode.class).defaultValue(Mode.EXACTLY_ONCE).description("Delivery."),
                Option.durationOption("timeout").defaultValue(Duration.ofSeconds(90)).description("Wait."),
                Option.intOption("batch-size").defaultValue(1000).atLeast(1).description("Rows per batch."),
                Option.stringOption("user").description("Who."));

        assertThat(OptionDocs.markdownTable(options)).isEqualTo("""
                | Option | Type | Default | Description |
                |---|---|---|---|
                | `url` | string | required | Where \\| to write. |
                | `mode` | enum | `exactly-once` | Delivery. Accepts one of exactly-once, at-least-once. |
                | `timeout` | duration | `90s` | Wait. Accepts a duration such as 500ms, 10s, 5m. |
                | `batch-size` | int | `1000` | Rows per batch. Accepts a whole number >= 1. |
                | `user` | string | — | Who. |
                """);
    }

    @Test
    void withTableReplacesOnlyWhatIsBetweenTheMarkers() {
        List<Option<?>> options = List.of(Option.stringOption("url").required().description("Where."));
        String page = "# Title\n<!-- options:begin -->\nstale\n<!-- options:end -->\nMore.\n";

        assertThat(OptionDocs.withTable(page, options)).isEqualTo("# Title\n<!-- options:begin -->\n"
                + "| Option | Type | Default | Description |\n|---|---|---|---|\n| `url` | string | required | Where. |\n"
                + "<!-- options:end -->\nMore.\n");
        assertThatThrownBy(() -> OptionDocs.withTable("# no markers", options))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("<!-- options:begin -->");
    }

    @Test
    void enumValuesAreAcceptedAndNamedInKebabCase() {
        Option<Mode> mode = Option.enumOption("mode", Mode.class);

        assertThat(mode.parse("sink 'x'", "At-Least-Once")).isEqualTo(Mode.AT_LEAST_ONCE);
        assertThat(mode.accepted()).isEqualTo("one of exactly-once, at-least-once");
    }
}
