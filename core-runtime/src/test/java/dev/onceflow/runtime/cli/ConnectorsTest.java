package dev.onceflow.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.format.json.JsonFormatFactory;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.format.Format;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A second format a connector asks for by name is found and checked as the job file's own is. */
class ConnectorsTest {

    @Test
    void aFormatAskedForByNameIsFoundWithItsOptionsValidatedOrRefusedInOneLine() throws Exception {
        Connectors connectors = Connectors.discover(null);

        Format json = connectors.format("json", Map.of(), "source 'kafka' key-format");
        assertThat(json.factory()).isInstanceOf(JsonFormatFactory.class);

        assertThatThrownBy(() -> connectors.format("yaml", Map.of(), "source 'kafka' key-format"))
                .isInstanceOf(OptionException.class)
                .hasMessage("source 'kafka' key-format: no format 'yaml' on the classpath; available: "
                        + "event, json");
        assertThatThrownBy(() -> connectors.format("json", Map.of("quote", "x"), "source 'kafka' key-format"))
                .isInstanceOf(OptionException.class)
                .hasMessageStartingWith("source 'kafka' key-format 'json': unknown option 'quote'");
    }
}
