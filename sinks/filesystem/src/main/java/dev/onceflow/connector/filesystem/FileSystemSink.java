package dev.onceflow.connector.filesystem;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.sink.SinkContext;
import dev.onceflow.spi.sink.TransactionalWriter;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Exactly-once part files on any Hadoop-compatible file system (local disk, HDFS), one per
 * checkpoint and subtask, each holding its events one per line in
 * {@link dev.onceflow.spi.record.EventFormat}. A file is written under a hidden in-progress name,
 * made durable at the barrier, and renamed to its final name when the checkpoint completes, so
 * readers of the directory see each event exactly once and never see uncommitted ones.
 *
 * <pre>{@code
 * FileSystemSink sink = FileSystemSink.builder("hdfs://namenode/out").partPrefix("events").build();
 * }</pre>
 *
 * <p>One directory and prefix per sink: {@code abortLingering} deletes every in-progress file with
 * this prefix that belongs to a subtask it owns. Immutable; holds settings only.
 */
public final class FileSystemSink implements TwoPhaseCommitSink<Event, FileTransaction> {

    /** Part prefixes must give visible, single-segment file names. */
    static final Pattern VALID_PREFIX = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    /** Attempt ids become part of file names. */
    private static final Pattern VALID_ATTEMPT_ID = Pattern.compile("[A-Za-z0-9._-]+");

    private final String path;
    private final String partPrefix;
    private final Duration recoveryTimeout;
    private final Configuration conf;

    private FileSystemSink(Builder builder) {
        this.path = builder.path;
        this.partPrefix = builder.partPrefix;
        this.recoveryTimeout = builder.recoveryTimeout;
        this.conf = new Configuration(builder.conf);
    }

    /** A builder for the directory {@code path} (a local path, or a URI such as {@code hdfs://nn/dir}). */
    public static Builder builder(String path) {
        return new Builder(path);
    }

    /** Creates the output directory if missing; connects to the file system, so not called by the factory. */
    @Override
    public TransactionalWriter<Event, FileTransaction> createWriter(SinkContext context) throws Exception {
        if (!VALID_ATTEMPT_ID.matcher(context.attemptId()).matches()) {
            throw new IllegalArgumentException("attempt id '" + context.attemptId()
                    + "' cannot be part of a file name; expected letters, digits, '.', '_' or '-'");
        }
        Configuration writerConf = new Configuration(conf);
        Path directory = new Path(path);
        FileSystem fs = FileSystemPaths.fileSystemOf(directory, writerConf);
        directory = fs.makeQualified(directory);
        fs.mkdirs(directory);
        return new FileSystemSinkWriter(context, fs, directory, new PartFileNames(partPrefix), recoveryTimeout);
    }

    @Override
    public SimpleVersionedSerializer<FileTransaction> transactionSerializer() {
        return FileTransactionSerializer.INSTANCE;
    }

    /** Builds a {@link FileSystemSink}. */
    public static final class Builder {

        private final String path;
        private String partPrefix = "part";
        private Duration recoveryTimeout = Duration.ofMinutes(2);
        private Configuration conf;

        private Builder(String path) {
            this.path = Objects.requireNonNull(path, "path");
            if (path.isBlank()) {
                throw new IllegalArgumentException("path must not be blank");
            }
        }

        /** The start of part file names; {@code part} by default. Must not start with '.' or '_' (hidden). */
        public Builder partPrefix(String partPrefix) {
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
        public Builder recoveryTimeout(Duration timeout) {
            if (timeout.isZero() || timeout.isNegative()) {
                throw new IllegalArgumentException("recovery timeout must be positive, was " + timeout);
            }
            this.recoveryTimeout = timeout;
            return this;
        }

        /** The Hadoop configuration (for HDFS addresses, credentials); {@code new Configuration()} by default. */
        public Builder configuration(Configuration conf) {
            this.conf = Objects.requireNonNull(conf, "conf");
            return this;
        }

        public FileSystemSink build() {
            if (conf == null) {
                conf = new Configuration();
            }
            return new FileSystemSink(this);
        }
    }
}
