package dev.onceflow.connector.filesystem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import java.nio.file.Files;
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
    void invalidOptionsAreNamed(@TempDir Path dir) {
        String out = dir.resolve("out").toString();
        assertThatThrownBy(() -> validate(Map.of()))
                .isInstanceOf(OptionException.class)
                .hasMessageStartingWith("sink 'filesystem': missing required option 'path'");
        assertThatThrownBy(() -> validate(Map.of("path", out, "part-prefix", ".hidden")))
                .isInstanceOf(OptionException.class)
                .hasMessage("sink 'filesystem': option 'part-prefix' has value '.hidden'; expected letters, digits, "
                        + "'.', '_' or '-', starting with a letter or digit");
        assertThatThrownBy(() -> validate(Map.of("path", out, "prefix", "x")))
                .isInstanceOf(OptionException.class)
                .hasMessage("sink 'filesystem': unknown option 'prefix'; accepted options: path, part-prefix, "
                        + "rolling.max-part-bytes, rolling.max-part-age, compression");
    }

    private static final String EXPECTED = "; expected a directory: a local path or a URI such as hdfs://namenode:8020/out";

    /** A path that is an existing file failed only once the job ran, in every writer, with a stack trace. */
    @Test
    void aPathThatIsAnExistingFileIsRefusedBeforeTheJobStarts(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("out.txt"), "not a directory");

        assertThatThrownBy(() -> validate(Map.of("path", file.toString()))).isInstanceOf(OptionException.class)
                .hasMessage("sink 'filesystem': option 'path' has value '" + file + "', which is an existing file,"
                        + " not a directory" + EXPECTED);
        assertThatThrownBy(() -> validate(Map.of("path", "file:" + file.resolve("out")))).isInstanceOf(OptionException.class)
                .hasMessage("sink 'filesystem': option 'path' has value 'file:" + file.resolve("out") + "', which cannot be"
                        + " created: '" + file + "' is a file" + EXPECTED);
        assertThat(Files.readString(file)).isEqualTo("not a directory");
    }

    /** An unwritable parent failed only once the job ran, and Hadoop's message said it "does not exist". */
    @Test
    void aDirectoryThatCannotBeWrittenOrCreatedIsRefusedBeforeTheJobStarts(@TempDir Path dir) throws Exception {
        Path locked = Files.createDirectory(dir.resolve("locked"));
        Path out = locked.resolve("jobs").resolve("out");

        try (UnwritableDirectory unwritable = UnwritableDirectory.of(locked)) {
            assertThatThrownBy(() -> validate(Map.of("path", out.toString()))).isInstanceOf(OptionException.class)
                    .hasMessage("sink 'filesystem': option 'path' has value '" + out + "', which cannot be created: this"
                            + " user may not write to '" + locked + "'" + EXPECTED);
            assertThatThrownBy(() -> validate(Map.of("path", locked.toString()))).isInstanceOf(OptionException.class)
                    .hasMessage("sink 'filesystem': option 'path' has value '" + locked + "', which is a directory this"
                            + " user may not write to" + EXPECTED);
        }
    }

    /** HDFS checks its own permissions, for the user the writers connect as: nothing local applies. */
    @Test
    void aPathOnAnotherFileSystemIsNotCheckedLocally() {
        assertThat(validate(Map.of("path", "hdfs://namenode:8020/out")).get(FileSystemSinkFactory.PATH))
                .isEqualTo("hdfs://namenode:8020/out");
    }

    @Test
    void aMissingDirectoryUnderAWritableOneIsAcceptedAndNotCreated(@TempDir Path dir) {
        Path out = dir.resolve("a").resolve("b");

        assertThat(validate(Map.of("path", out.toString())).get(FileSystemSinkFactory.PATH)).isEqualTo(out.toString());
        assertThat(validate(Map.of("path", dir.toString())).get(FileSystemSinkFactory.PATH)).isEqualTo(dir.toString());
        assertThat(dir.resolve("a")).doesNotExist();
    }

    private OptionValues validate(Map<String, String> raw) {
        return OptionValues.validate("sink 'filesystem'", raw, factory.options());
    }
}
