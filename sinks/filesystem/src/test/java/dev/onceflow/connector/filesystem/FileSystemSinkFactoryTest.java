package dev.onceflow.connector.filesystem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import java.nio.file.Path;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Discovery by name and option validation, as the CLI does it for a job file. */
class FileSystemSinkFactoryTest {

    private final FileSystemSinkFactory factory = new FileSystemSinkFactory();

    @Test
    void isFoundByServiceLoaderUnderItsIdentifier() {
        assertThat(ServiceLoader.load(SinkFactory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> f.identifier().equals("filesystem")).toList())
                .singleElement().isInstanceOf(FileSystemSinkFactory.class);
    }

    @Test
    void createsATwoPhaseCommitSinkWithoutTouchingTheFileSystem(@TempDir Path dir) {
        Path out = dir.resolve("not-yet");

        assertThat(factory.createSink(validate(Map.of("path", out.toString())))).isInstanceOf(TwoPhaseCommitSink.class);
        assertThat(out).doesNotExist();
    }

    @Test
    void invalidOptionsAreNamed() {
        assertThatThrownBy(() -> validate(Map.of()))
                .isInstanceOf(OptionException.class)
                .hasMessageStartingWith("sink 'filesystem': missing required option 'path'");
        assertThatThrownBy(() -> validate(Map.of("path", "/out", "part-prefix", ".hidden")))
                .isInstanceOf(OptionException.class)
                .hasMessage("sink 'filesystem': option 'part-prefix' has value '.hidden'; expected letters, digits, "
                        + "'.', '_' or '-', starting with a letter or digit");
        assertThatThrownBy(() -> validate(Map.of("path", "/out", "prefix", "x")))
                .isInstanceOf(OptionException.class)
                .hasMessage("sink 'filesystem': unknown option 'prefix'; accepted options: path, part-prefix, "
                        + "rolling.max-part-bytes, rolling.max-part-age, compression");
    }

    private OptionValues validate(Map<String, String> raw) {
        return OptionValues.validate("sink 'filesystem'", raw, factory.options());
    }
}
