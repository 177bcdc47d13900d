package dev.onceflow.connector.file;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.source.Boundedness;
import dev.onceflow.spi.source.ReplayableSource;
import dev.onceflow.spi.source.SourceReader;
import dev.onceflow.spi.source.SourceReaderContext;
import dev.onceflow.spi.source.SplitEnumerator;
import dev.onceflow.spi.source.SplitEnumeratorContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Newline-delimited files in a directory of any Hadoop-compatible file system, replayable by
 * byte offset: one split per file, whose position is the offset of the next unread line. Files of
 * a format read whole ({@link WholeFileDecoding}, Parquet) are replayable by row: a split's position
 * is the number of rows emitted from its file.
 *
 * <p><b>Bounded</b> (no discovery interval): the directory is listed once when the job first
 * starts, and the source ends when those files are read. <b>Continuous</b>: the directory is
 * listed again every discovery interval, files are followed as they grow, and the source never
 * ends. Files whose names start with {@code .} or {@code _} are ignored in both modes.
 *
 * <pre>{@code
 * FileSource<Event> source = FileSource.builder("hdfs://namenode/in").format(FileFormat.LINES)
 *         .discoveryInterval(Duration.ofSeconds(10)).build();
 * }</pre>
 *
 * <p>Immutable; holds settings only. Each enumerator and reader copies the configuration, so
 * none of them shares mutable Hadoop state with another thread.
 */
public final class FileSource<T> implements ReplayableSource<T, FileSplit, FileEnumeratorState> {

    private final String path;
    private final LineDecoding<T> format;
    private final WholeFileDecoding<T> wholeFiles;
    private final Duration discoveryInterval;
    private final Configuration conf;

    private FileSource(Builder<T> builder) {
        this.path = builder.path;
        this.format = builder.format;
        this.wholeFiles = builder.wholeFiles;
        this.discoveryInterval = builder.discoveryInterval;
        this.conf = new Configuration(builder.conf);
    }

    /**
     * A builder of a source of events ({@link FileFormat#EVENTS} lines unless told otherwise), for the
     * directory {@code path} (a local path, or a URI such as {@code hdfs://nn/dir}).
     */
    public static Builder<Event> builder(String path) {
        return new Builder<>(path, FileFormat.EVENTS);
    }

    /** A builder of a source of records decoded from lines as {@code decoding} says, for {@code path}. */
    public static <T> Builder<T> builder(String path, LineDecoding<T> decoding) {
        return new Builder<>(path, Objects.requireNonNull(decoding, "decoding"));
    }

    /**
     * A builder of a source of records read from whole files as {@code decoding} says (Parquet), for
     * {@code path}: a split's position is then the number of records emitted from its file.
     */
    public static <T> Builder<T> builder(String path, WholeFileDecoding<T> decoding) {
        Builder<T> builder = new Builder<>(path, null);
        builder.wholeFiles = Objects.requireNonNull(decoding, "decoding");
        return builder;
    }

    @Override
    public Boundedness boundedness() {
        return discoveryInterval == null ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SplitEnumerator<FileSplit, FileEnumeratorState> createEnumerator(SplitEnumeratorContext<FileSplit> context) {
        return new FileEnumerator(context, qualifiedDirectory(), new Configuration(conf), discoveryInterval, true,
                new FileEnumeratorState(List.of(), Set.of()));
    }

    @Override
    public SplitEnumerator<FileSplit, FileEnumeratorState> restoreEnumerator(SplitEnumeratorContext<FileSplit> context,
            FileEnumeratorState state) {
        // A bounded job's input is the listing taken when it first started: files added since then
        // are not part of it, so a restored bounded enumerator does not list again.
        boolean discoverAtStart = discoveryInterval != null;
        return new FileEnumerator(context, qualifiedDirectory(), new Configuration(conf), discoveryInterval,
                discoverAtStart, state);
    }

    @Override
    public SourceReader<T, FileSplit> createReader(SourceReaderContext context) {
        return new FileSourceReader<>(context, new Configuration(conf), format, wholeFiles, discoveryInterval);
    }

    @Override
    public SimpleVersionedSerializer<FileSplit> splitSerializer() {
        return FileSplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<FileEnumeratorState> enumeratorStateSerializer() {
        return FileEnumeratorStateSerializer.INSTANCE;
    }

    /** The directory with scheme (and, for local paths, made absolute), as split paths are written. */
    private Path qualifiedDirectory() {
        Path directory = new Path(path);
        try {
            return FileSystemPaths.fileSystemOf(directory, conf).makeQualified(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot access the file system of " + path, e);
        }
    }

    /** Builds a {@link FileSource}. */
    public static final class Builder<T> {

        private final String path;
        private LineDecoding<T> format;
        private WholeFileDecoding<T> wholeFiles;
        private Duration discoveryInterval;
        private Configuration conf;

        private Builder(String path, LineDecoding<T> format) {
            this.path = Objects.requireNonNull(path, "path");
            this.format = format;
            if (path.isBlank()) {
                throw new IllegalArgumentException("path must not be blank");
            }
        }

        /** How lines become records, such as {@link FileFormat#LINES} for a source of events. */
        public Builder<T> format(LineDecoding<T> format) {
            this.format = Objects.requireNonNull(format, "format");
            this.wholeFiles = null;
            return this;
        }

        /** Makes the source continuous, re-listing the directory every {@code interval} (positive). */
        public Builder<T> discoveryInterval(Duration interval) {
            if (interval.isZero() || interval.isNegative()) {
                throw new IllegalArgumentException("discovery interval must be positive, was " + interval);
            }
            this.discoveryInterval = interval;
            return this;
        }

        /** Makes the source continuous or, with an empty value, bounded (the default). */
        public Builder<T> discoveryInterval(Optional<Duration> interval) {
            if (interval.isPresent()) {
                return discoveryInterval(interval.get());
            }
            this.discoveryInterval = null;
            return this;
        }

        /** The Hadoop configuration (for HDFS addresses, credentials); {@code new Configuration()} by default. */
        public Builder<T> configuration(Configuration conf) {
            this.conf = Objects.requireNonNull(conf, "conf");
            return this;
        }

        public FileSource<T> build() {
            if (conf == null) {
                conf = new Configuration();
            }
            return new FileSource<>(this);
        }
    }
}
