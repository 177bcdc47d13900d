package dev.onceflow.connector.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SourceFactory;
import dev.onceflow.spi.source.Boundedness;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** Discovery by name and option validation, as the CLI does it for a job file. */
class FileSourceFactoryTest {

    private final FileSourceFactory factory = new FileSourceFactory();

    @Test
    void isFoundByServiceLoaderUnderItsIdentifier() {
        assertThat(ServiceLoader.load(SourceFactory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> f.identifier().equals("file")).toList())
                .singleElement().isInstanceOf(FileSourceFactory.class);
    }

    @Test
    void discoveryIntervalMakesTheSourceContinuous() {
        assertThat(factory.createSource(validate(Map.of("path", "/in"))).boundedness())
                .isEqualTo(Boundedness.BOUNDED);
        assertThat(factory.createSource(validate(Map.of("path", "/in", "discovery-interval", "10s"))).boundedness())
                .isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
    }

    @Test
    void formatIsMatchedCaseInsensitively() {
        assertThat(validate(Map.of("path", "/in", "format", "lines")).get(FileSourceFactory.FORMAT))
                .isEqualTo(FileFormat.LINES);
        assertThat(validate(Map.of("path", "/in")).get(FileSourceFactory.FORMAT)).isEqualTo(FileFormat.EVENTS);
    }

    @Test
    void invalidOptionsAreNamed() {
        assertThatThrownBy(() -> validate(Map.of()))
                .isInstanceOf(OptionException.class).hasMessageStartingWith("source 'file': missing required option 'path'");
        assertThatThrownBy(() -> validate(Map.of("path", "/in", "format", "csv")))
                .isInstanceOf(OptionException.class)
                .hasMessage("source 'file': option 'format' has value 'csv'; expected one of events, lines");
        assertThatThrownBy(() -> validate(Map.of("path", "/in", "discovery-interval", "0s")))
                .isInstanceOf(OptionException.class).hasMessageContaining("option 'discovery-interval' has value '0s'");
        assertThatThrownBy(() -> validate(Map.of("path", "/in", "discovery-interval", "soon")))
                .isInstanceOf(OptionException.class).hasMessageContaining("option 'discovery-interval' has value 'soon'");
        assertThatThrownBy(() -> validate(Map.of("path", "/in", "interval", "1s")))
                .isInstanceOf(OptionException.class)
                .hasMessage("source 'file': unknown option 'interval'; accepted options: path, format, metadata-fields, discovery-interval");
    }

    private OptionValues validate(Map<String, String> raw) {
        return OptionValues.validate("source 'file'", raw, factory.options());
    }
}
