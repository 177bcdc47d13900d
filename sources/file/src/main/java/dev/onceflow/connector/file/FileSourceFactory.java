package dev.onceflow.connector.file;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SourceFactory;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.source.ReplayableSource;
import java.time.Duration;
import java.util.List;

/** Makes {@link FileSource} usable from job files as {@code file}. */
public final class FileSourceFactory implements SourceFactory {

    public static final Option<String> PATH = Option.stringOption("path").required()
            .validate(p -> !p.isBlank(), "a directory: a local path or a URI such as hdfs://namenode:8020/in")
            .description("Directory to read: a local path or a URI such as hdfs://namenode:8020/in.");

    public static final Option<FileFormat> FORMAT = Option.enumOption("format", FileFormat.class)
            .defaultValue(FileFormat.EVENTS)
            .description("EVENTS: each line is an event (id,key,count,payload); "
                    + "LINES: each line is text, id = <file name>:<byte offset>.");

    public static final Option<Duration> DISCOVERY_INTERVAL = Option.durationOption("discovery-interval")
            .validate(d -> !d.isZero() && !d.isNegative(), "a positive duration such as 500ms, 10s, 5m")
            .description("How often to look for new files and for growth of read ones; "
                    + "omit to read the files present at start and end.");

    @Override
    public String identifier() {
        return "file";
    }

    @Override
    public String description() {
        return "Reads newline-delimited files from a directory on any Hadoop-compatible file system, "
                + "once or continuously, replayable by byte offset.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(PATH, FORMAT, DISCOVERY_INTERVAL);
    }

    @Override
    public ReplayableSource<Event, ?, ?> createSource(OptionValues options) {
        return FileSource.builder(options.get(PATH))
                .format(options.get(FORMAT))
                .discoveryInterval(options.getOptional(DISCOVERY_INTERVAL))
                .build();
    }
}
