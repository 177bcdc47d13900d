package dev.onceflow.connector.filesystem;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Exactly-once part files on any Hadoop-compatible file system (local disk, HDFS), at least one
 * per checkpoint and subtask that wrote anything, each holding its records one per line in a
 * {@link LineFormat} (events in {@link dev.onceflow.spi.record.EventFormat} by default, or rows in
 * any format), optionally gzip-compressed. A file is written under a hidden in-progress name, made
 * durable when it is closed (by the rolling policy or at the barrier), and renamed to its final name
 * when the checkpoint completes, so readers of the directory see each record exactly once and never
 * see uncommitted ones.
 *
 * <pre>{@code
 * FileSystemSink<Event> sink = FileSystemSink.builder("hdfs://namenode/out")
 *         .partPrefix("events")
 *         .maxPartBytes(128L << 20)
 *         .compression(Compression.GZIP)
 *         .build();
 * }</pre>
 *
 * <p>One directory and prefix per sink: {@code abortLingering} deletes every in-progress file with
 * this prefix that belongs to a subtask it owns. Immutable; holds settings only.
 */
public final class FileSystemSink<T> implements TwoPhaseCommitSink<T, FileTransaction> {

    /** Part prefixes must give visible, single-segment file names. */
    static final Pattern VALID_PREFIX = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    /** Attempt ids become part of file names. */
    private static final Pattern VALID_ATTEMPT_ID = Pattern.compile("[A-Za-z0-9._-]+");

    private final String path;
    private final String partPrefix;
    private final Duration recoveryTimeout;
    private final RollingPolicy rollingPolicy;
    private final Compression compression;
    private final Configuration conf;
    private final LineFormat<T> lineFormat;

    private FileSystemSink(Builder<T> builder) {
        this.path = builder.path;
        this.partPrefix = builder.partPrefix;
        this.rollingPolicy = new RollingPolicy(builder.maxPartBytes, builder.maxPartAge);
        this.compression = builder.compression;
        this.recoveryTimeout = builder.recoveryTimeout;
        this.conf = new Configuration(builder.conf);
        this.lineFormat = builder.lineFormat;
    }

    /**
     * The Hadoop client configuration this sink's writers use for a path on a file system other
     * than the local one (HDFS), for programs that write beside the sink and should close files
     * as promptly. It is a copy of {@code base} (which is not changed) in which a closing client
     * asks the name node whether the file is complete again after 20 ms, doubling the wait up
     * to 10 times, where Hadoop waits 400 ms, 5 times
     * ({@code dfs.client.block.write.locateFollowingBlock.initial.delay.ms} and
     * {@code ...retries}; see docs/connectors/filesystem.md, "On HDFS"). A key that {@code base}
     * sets other than in Hadoop's {@code *-default.xml} files keeps its value.
     *
     * @throws NullPointerException if {@code base} is null
     */
    public static Configuration clientConfiguration(Configuration base) {
        Objects.requireNonNull(base, "base");
        Configuration tuned = new Configuration(base);
        FileSystemPaths.closeFilesPromptly(tuned);
        return tuned;
    }

    /**
     * A builder of a sink of events, as {@link dev.onceflow.spi.record.EventFormat} lines, for the directory {@code path} (a
     * local path, or a URI such as {@code hdfs://nn/dir}).
     */
    public static Builder<Event> builder(String path) {
        return new Builder<>(path, LineFormat.events());
    }

    /** A builder of a sink of records written as {@code lineFormat} says, for the directory {@code path}. */
    public static <T> Builder<T> builder(String path, LineFormat<T> lineFormat) {
        return new Builder<>(path, Objects.requireNonNull(lineFormat, "lineFormat"));
    }

    /** Creates the output directory if missing; connects to the file system, so not called by the factory. */
    @Override
    public TransactionalWriter<T, FileTransaction> createWriter(SinkContext context) throws Exception {
        if (!VALID_ATTEMPT_ID.matcher(context.attemptId()).matches()) {
            throw new IllegalArgumentException("attempt id '" + context.attemptId()
                    + "' cannot be part of a file name; expected letters, digits, '.', '_' or '-'");
        }
        Configuration writerConf = new Configuration(conf);
        Path directory = new Path(path);
        FileSystem fs = FileSystemPaths.open(directory, writerConf);
        try {
            directory = fs.makeQualified(directory);
            fs.mkdirs(directory);
        } catch (IOException | RuntimeException e) {
            if (!FileSystemPaths.isLocal(directory)) {
                fs.close();
            }
            throw e;
        }
        return new FileSystemSinkWriter<>(context, fs, !FileSystemPaths.isLocal(directory), directory,
                new PartFileNames(partPrefix, lineFormat.writesWholeFiles() ? lineFormat.fileExtension()
                        : compression.extension()), rollingPolicy, compression, recoveryTimeout,
                lineFormat);
    }

    @Override
    public SimpleVersionedSerializer<FileTransaction> transactionSerializer() {
        return FileTransactionSerializer.INSTANCE;
    }

    /** Builds a {@link FileSystemSink}. */
    public static final class Builder<T> {

        private final String path;
        private final LineFormat<T> lineFormat;
        private String partPrefix = "part";
        private Duration recoveryTimeout = Duration.ofMinutes(2);
        private OptionalLong maxPartBytes = OptionalLong.empty();
        private Optional<Duration> maxPartAge = Optional.empty();
        private Compression compression = Compression.NONE;
        private Configuration conf;

        private Builder(String path, LineFormat<T> lineFormat) {
            this.path = Objects.requireNonNull(path, "path");
            this.lineFormat = lineFormat;
            if (path.isBlank()) {
                throw new IllegalArgumentException("path must not be blank");
            }
        }

        /** The start of part file names; {@code part} by default. Must not start with '.' or '_' (hidden). */
        public Builder<T> partPrefix(String partPrefix) {
            if (!VALID_PREFIX.matcher(partPrefix).matches()) {
                throw new IllegalArgumentException("part prefix '" + partPrefix
                        + "' must start with a letter or digit and contain only letters, digits, '.', '_' or '-'");
            }
            this.partPrefix = partPrefix;
            return this;
        }

        /**
         * How long a commit waits for HDFS lease or truncate recovery before it fails (and is
         * retried by the runtime); 2 minutes by default.
         */
        public Builder<T> recoveryTimeout(Duration timeout) {
            if (timeout.isZero() || timeout.isNegative()) {
                throw new IllegalArgumentException("recovery timeout must be positive, was " + timeout);
            }
            this.recoveryTimeout = timeout;
            return this;
        }

        /**
         * Closes a part file and starts the next once this many bytes of text were written to it
         * (before compression; checked before each write, so a file exceeds it by less than a line).
         * By default a part file is closed only at each checkpoint.
         */
        public Builder<T> maxPartBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("maximum part file size must be positive, was " + bytes);
            }
            this.maxPartBytes = OptionalLong.of(bytes);
            return this;
        }

        /**
         * Closes a part file and starts the next once it has been open this long (checked before
         * each write). By default a part file is closed only at each checkpoint.
         */
        public Builder<T> maxPartAge(Duration age) {
            if (age.isZero() || age.isNegative()) {
                throw new IllegalArgumentException("maximum part file age must be positive, was " + age);
            }
            this.maxPartAge = Optional.of(age);
            return this;
        }

        /** How part files are compressed; {@link Compression#NONE} by default. */
        public Builder<T> compression(Compression compression) {
            this.compression = Objects.requireNonNull(compression, "compression");
            return this;
        }

        /** The Hadoop configuration (for HDFS addresses, credentials); {@code new Configuration()} by default. */
        public Builder<T> configuration(Configuration conf) {
            this.conf = Objects.requireNonNull(conf, "conf");
            return this;
        }

        /**
         * @throws IllegalArgumentException if the format writes whole files (Parquet) and a size or
         *     age limit or a compression is set: such a part file is finished at every checkpoint,
         *     never split, and its format compresses it (FMT-5)
         */
        public FileSystemSink<T> build() {
            if (lineFormat.writesWholeFiles()) {
                refuseForWholeFiles(maxPartBytes.isPresent(), FileSystemSinkFactory.MAX_PART_BYTES.key(),
                        "the checkpoint interval sets the file size");
                refuseForWholeFiles(maxPartAge.isPresent(), FileSystemSinkFactory.MAX_PART_AGE.key(),
                        "the checkpoint interval sets the file size");
                refuseForWholeFiles(compression != Compression.NONE, FileSystemSinkFactory.COMPRESSION.key(),
                        "set the format's own compression option");
            }
            if (conf == null) {
                conf = new Configuration();
            }
            return new FileSystemSink<>(this);
        }

        private void refuseForWholeFiles(boolean set, String option, String instead) {
            if (set) {
                throw new IllegalArgumentException("format '" + lineFormat.name() + "' writes whole files, each "
                        + "finished at a checkpoint: option '" + option + "' applies to line formats only; " + instead);
            }
        }
    }
}
