package dev.onceflow.connector.filesystem;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.sink.Sink;
import java.util.List;

/** Makes {@link FileSystemSink} usable from job files as {@code filesystem}. */
public final class FileSystemSinkFactory implements SinkFactory {

    public static final Option<String> PATH = Option.stringOption("path").required()
            .validate(p -> !p.isBlank(), "a directory: a local path or a URI such as hdfs://namenode:8020/out")
            .description("Directory to write part files to, created if missing: "
                    + "a local path or a URI such as hdfs://namenode:8020/out.");

    public static final Option<String> PART_PREFIX = Option.stringOption("part-prefix").defaultValue("part")
            .validate(p -> FileSystemSink.VALID_PREFIX.matcher(p).matches(),
                    "letters, digits, '.', '_' or '-', starting with a letter or digit")
            .description("Start of part file names: <prefix>-<subtask>-<checkpoint>-<attempt>.");

    @Override
    public String identifier() {
        return "filesystem";
    }

    @Override
    public String description() {
        return "Writes events exactly once as part files on any Hadoop-compatible file system, "
                + "committed by rename when a checkpoint completes.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(PATH, PART_PREFIX);
    }

    @Override
    public Sink<Event> createSink(OptionValues options) {
        return FileSystemSink.builder(options.get(PATH)).partPrefix(options.get(PART_PREFIX)).build();
    }
}
