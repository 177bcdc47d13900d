package dev.onceflow.connector.file;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.RowSource;
import dev.onceflow.spi.factory.SourceFactory;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.source.ReplayableSource;
import java.time.Duration;
import java.util.List;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** Makes {@link FileSource} usable from job files as {@code file}. */
public final class FileSourceFactory implements SourceFactory {

    public static final Option<String> PATH = Option.stringOption("path").required()
            .validate(p -> !p.isBlank(), "a directory: a local path or a URI such as hdfs://namenode:8020/in")
            .description("Directory to read: a local path or a URI such as hdfs://namenode:8020/in.");

    public static final Option<FileFormat> FORMAT = Option.enumOption("format", FileFormat.class)
            .defaultValue(FileFormat.EVENTS)
            .description("EVENTS: each line is an event (id,key,count,payload); "
                    + "LINES: each line is text, id = <file name>:<byte offset>.");

    public static final Option<String> METADATA_FIELDS = Option.stringOption("metadata-fields")
            .validate(FileSourceFactory::validMetadata, "names among file, offset, separated by commas")
            .description("Fields added after the record's own, in this order, from its place: file (string, the "
                    + "file's name), offset (long, the line's byte offset in it; for Parquet and Avro files, the row's index). Together they identify a record, "
                    + "also on replay: with both and no primary-key declared, they are the rows' primary key. Not "
                    + "with the event format.");

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
        return "Reads newline-delimited files (or whole Parquet or Avro container files) from a directory on any Hadoop-compatible "
                + "file system, once or continuously, replayable by byte offset (or row).";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(PATH, FORMAT, METADATA_FIELDS, DISCOVERY_INTERVAL);
    }

    /** Event lines, as every job read before rows, unless the job file names a format. */
    @Override
    public Optional<String> defaultFormat() {
        return Optional.of("event");
    }

    /**
     * Rows decoded from each line in the job's format. The {@code format} option (EVENTS, LINES) is
     * that of sources of events: with the default event format it keeps its meaning; with any other
     * format it must stay unset.
     */
    @Override
    public RowSource<?> createRowSource(Context context) {
        Format format = context.format().orElseThrow();
        OptionValues options = context.options();
        List<LineDecoding.Metadata> metadata = options.getOptional(METADATA_FIELDS)
                .map(list -> Arrays.stream(list.split(",")).map(name -> LineDecoding.Metadata.valueOf(
                        name.strip().toUpperCase(Locale.ROOT))).toList())
                .orElse(List.of());
        if (format.identifier().equals("event") && !metadata.isEmpty()) {
            throw new OptionException("source 'file': option 'metadata-fields' adds fields to rows, which events cannot "
                    + "hold; name a format such as json");
        }
        if (context.wantsEvents()) {
            // the event path as it was, LINES included: what earlier job files read, they read the same
            return SourceFactory.super.createRowSource(context);
        }
        if (options.get(FORMAT) != FileFormat.EVENTS) {
            throw new OptionException("source 'file': option 'format: " + options.get(FORMAT).name().toLowerCase(java.util.Locale.ROOT)
                    + "' makes events of lines; it does not go with format '" + format.identifier()
                    + "': remove it, or use format: raw for lines of text");
        }
        String owner = "source 'file'";
        Schema valueSchema = format.schema(context.declaredSchema(), owner);
        FileSource.Builder<Row> source;
        Schema schema;
        try {
            schema = LineDecoding.schema(valueSchema, metadata);
            // A whole-file format (Parquet, Avro container files) matches each file's columns to the schema when it opens the file.
            source = format.writesWholeFiles()
                    ? FileSource.builder(options.get(PATH), WholeFileDecoding.rows(format, valueSchema, metadata))
                    : FileSource.builder(options.get(PATH), LineDecoding.rows(format, valueSchema, metadata));
        } catch (OptionException e) {
            throw new OptionException(owner + ": " + e.getMessage());
        }
        return RowSource.ofRows(schema, source.discoveryInterval(options.getOptional(DISCOVERY_INTERVAL)).build());
    }

    private static boolean validMetadata(String list) {
        return Arrays.stream(list.split(",")).map(String::strip).allMatch(name -> Arrays.stream(
                LineDecoding.Metadata.values()).anyMatch(m -> m.fieldName().equals(name)));
    }

    @Override
    public ReplayableSource<Event, ?, ?> createSource(OptionValues options) {
        return FileSource.builder(options.get(PATH))
                .format(options.get(FORMAT))
                .discoveryInterval(options.getOptional(DISCOVERY_INTERVAL))
                .build();
    }
}
