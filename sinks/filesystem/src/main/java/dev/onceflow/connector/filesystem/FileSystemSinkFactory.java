package dev.onceflow.connector.filesystem;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.RowSink;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.sink.Sink;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Makes {@link FileSystemSink} usable from job files as {@code filesystem}. */
public final class FileSystemSinkFactory implements SinkFactory {

    private static final String A_DIRECTORY = "a directory: a local path or a URI such as hdfs://namenode:8020/out";

    // A local path that is a file, or under a directory nobody may write to, used to fail only once
    // the job ran, in every writer, with a Hadoop stack trace (and "does not exist" for a parent
    // that did). It is refused here, before the job starts.
    public static final Option<String> PATH = Option.stringOption("path").required()
            .validate(p -> !p.isBlank(), A_DIRECTORY)
            .check(FileSystemPaths::localDirectoryProblem, A_DIRECTORY)
            .description("Directory to write part files to, created if missing: "
                    + "a local path or a URI such as hdfs://namenode:8020/out. A local path is checked before the job "
                    + "starts: a directory, or one that can be created, that this user may write to.");

    public static final Option<String> PART_PREFIX = Option.stringOption("part-prefix").defaultValue("part")
            .validate(p -> FileSystemSink.VALID_PREFIX.matcher(p).matches(),
                    "letters, digits, '.', '_' or '-', starting with a letter or digit")
            .description("Start of part file names: <prefix>-<subtask>-<checkpoint>-<part>-<attempt>[.gz].");

    public static final Option<Long> MAX_PART_BYTES = Option.longOption("rolling.max-part-bytes").atLeast(1L)
            .description("Close a part file and start the next once this many bytes of text were written to it "
                    + "(before compression); "
                    + "omit to close part files only at checkpoints. Line formats only: a whole-file format (parquet, avro) "
                    + "closes its files at every checkpoint.");

    public static final Option<Duration> MAX_PART_AGE = Option.durationOption("rolling.max-part-age")
            .validate(d -> !d.isZero() && !d.isNegative(), "a positive duration such as 10s")
            .description("Close a part file and start the next once it has been open this long; "
                    + "omit to close part files only at checkpoints. Line formats only.");

    public static final Option<Compression> COMPRESSION = Option.enumOption("compression", Compression.class)
            .defaultValue(Compression.NONE)
            .description("none, or gzip: each part file one gzip stream, named with .gz. Line formats only: "
                    + "parquet and avro compress with their own format options.");

    @Override
    public String identifier() {
        return "filesystem";
    }

    @Override
    public String description() {
        return "Writes records exactly once, one per line in a format (event lines by default) or as whole "
                + "Parquet files, as part files on any Hadoop-compatible file system, committed by rename when a "
                + "checkpoint completes.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(PATH, PART_PREFIX, MAX_PART_BYTES, MAX_PART_AGE, COMPRESSION);
    }

    /** Part files of event lines, as every job wrote before rows. */
    @Override
    public Optional<String> defaultFormat() {
        return Optional.of("event");
    }

    /** One record per line in the job's format; the format checks that it can write the input's fields. */
    @Override
    public RowSink<Row> createRowSink(Context context) {
        Format format = context.format().orElseThrow();
        LineFormat<Row> lines;
        try {
            lines = LineFormat.rows(format, context.inputSchema());
        } catch (OptionException e) {
            throw new OptionException("sink 'filesystem': " + e.getMessage());
        }
        try {
            return RowSink.ofRows(configured(FileSystemSink.builder(context.options().get(PATH), lines),
                    context.options()).build());
        } catch (IllegalArgumentException e) {
            throw new OptionException("sink 'filesystem': " + e.getMessage());
        }
    }

    @Override
    public Sink<Event> createSink(OptionValues options) {
        return configured(FileSystemSink.builder(options.get(PATH)), options).build();
    }

    private static <T> FileSystemSink.Builder<T> configured(FileSystemSink.Builder<T> builder, OptionValues options) {
        builder.partPrefix(options.get(PART_PREFIX)).compression(options.get(COMPRESSION));
        options.getOptional(MAX_PART_BYTES).ifPresent(builder::maxPartBytes);
        options.getOptional(MAX_PART_AGE).ifPresent(builder::maxPartAge);
        return builder;
    }
}
