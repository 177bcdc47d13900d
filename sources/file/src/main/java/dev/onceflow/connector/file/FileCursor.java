package dev.onceflow.connector.file;

import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.source.ReaderOutput;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A reader's progress through one file: the offset after the last emitted line, and the open
 * stream (if any) positioned somewhere after it.
 *
 * <p>Only {@link #offset} matters for replay. The stream is a cache: it is closed whenever the
 * file's end is reached and reopened at {@code offset}, so bytes of an unfinished last line are
 * simply read again once the line is complete.
 */
final class FileCursor<T> implements SplitCursor<T> {

    private final Configuration conf;
    private final Path path;
    private final LineDecoding<T> format;
    private final LineDecoding.Parser<T> parser;
    private FileSystem fs;
    private long offset;
    private FSDataInputStream stream;
    private LineReader lines;
    /** File length seen when the end was last reached; -1 while the end was not reached. */
    private long lengthAtEnd = -1;
    /** {@link System#nanoTime()} when the end was reached or the length last checked. */
    private long lastEndCheckNanos;

    FileCursor(FileSplit split, LineDecoding<T> format, LineDecoding.Parser<T> parser, Configuration conf) {
        this.conf = conf;
        this.path = new Path(split.path());
        this.format = format;
        this.parser = parser;
        this.offset = split.offset();
    }

    /** The split with the position after the last emitted line. */
    @Override
    public FileSplit split() {
        return new FileSplit(path.toString(), offset);
    }

    /** Whether the end of the file was reached and nothing was read since. */
    @Override
    public boolean atEnd() {
        return lengthAtEnd >= 0;
    }

    /**
     * Emits up to {@code max} complete lines; at the end of the file, closes the stream, and with
     * {@code emitUnterminatedLast} also emits a last line that lacks its {@code \n}.
     *
     * @return the number of events emitted
     * @throws IOException if the file cannot be read or a line is not in the format, naming the
     *     file and the line's byte offset
     */
    @Override
    public int emit(ReaderOutput<T> output, int max, boolean emitUnterminatedLast) throws IOException {
        if (stream == null) {
            open();
        }
        int emitted = 0;
        while (emitted < max) {
            LineReader.Line line = lines.next();
            if (line == null) {
                line = emitUnterminatedLast ? lines.remainder() : null;
                if (line != null) {
                    emitted += collect(output, line);
                }
                lengthAtEnd = lines.bytesSeen();
                lastEndCheckNanos = System.nanoTime();
                closeStream();
                break;
            }
            emitted += collect(output, line);
        }
        return emitted;
    }

    /**
     * Whether the file grew past the length seen at its end. Asks the file system at most once per
     * {@code checkIntervalNanos}, because on a distributed file system every check is a remote call.
     */
    @Override
    public boolean grew(long nowNanos, long checkIntervalNanos) throws IOException {
        if (nowNanos - lastEndCheckNanos < checkIntervalNanos) {
            return false;
        }
        lastEndCheckNanos = nowNanos;
        long length = fileSystem().getFileStatus(path).getLen();
        if (length > lengthAtEnd) {
            lengthAtEnd = -1;
            return true;
        }
        return false;
    }

    /**
     * Emits the line's record, or checks the file's header line (FMT-6): the line at offset 0 is
     * the header. Only it: a split resumed at a checkpointed offset is past the header, which was
     * the first line read, so its first line is a record.
     *
     * @return the number of lines read as records, emitted or rejected: 0 or 1
     */
    private int collect(ReaderOutput<T> output, LineReader.Line line) throws IOException {
        if (line.offset() == 0 && format.hasHeader()) {
            try {
                format.checkHeader(line.bytes());
            } catch (MalformedRecordException e) {
                throw new IOException("cannot read " + format.name() + " file " + path + ": its header line does not "
                        + "match the schema: " + e.getMessage(), e);
            }
            offset = line.nextOffset();
            return 0;
        }
        try {
            output.collect(parser.parse(path.getName(), line.offset(), line.bytes()));
        } catch (MalformedRecordException e) {
            // Never skip a bad line (SRC-6): the runtime fails the job here, or writes it to the dead letters.
            output.reject("byte offset " + line.offset() + " of file " + path + " (format " + format.name() + ")",
                    line.bytes(), e.getMessage());
        }
        // A rejected line is passed like an emitted one, so it is read once; it counts against the budget too.
        offset = line.nextOffset();
        return 1;
    }

    private void open() throws IOException {
        FileSystem fs = fileSystem();
        long length = fs.getFileStatus(path).getLen();
        if (length < offset) {
            throw new IOException("file " + path + " has " + length + " bytes but was already read up to byte "
                    + offset + "; it was truncated or replaced after it was read");
        }
        stream = fs.open(path);
        if (offset > 0) {
            stream.seek(offset);
        }
        lines = new LineReader(stream, offset, format.quotedFields());
    }

    /** Looked up on first use, so assigning a split never touches a remote system. */
    private FileSystem fileSystem() throws IOException {
        if (fs == null) {
            fs = FileSystemPaths.fileSystemOf(path, conf);
        }
        return fs;
    }

    private void closeStream() throws IOException {
        FSDataInputStream open = stream;
        stream = null;
        lines = null;
        if (open != null) {
            open.close();
        }
    }

    @Override
    public void close() throws IOException {
        closeStream();
    }
}
