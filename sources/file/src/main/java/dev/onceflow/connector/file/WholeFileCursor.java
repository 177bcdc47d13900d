package dev.onceflow.connector.file;

import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RandomAccessInput;
import dev.onceflow.spi.source.ReaderOutput;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;

/**
 * A reader's progress through one file read whole (Parquet): the number of records already emitted
 * from it, which is the split's position. On a restore the file is read again from its start and
 * that many records are skipped; the format gives every reader the same records in the same order
 * (FMT-7), so the next one is the first not emitted (SRC-1).
 *
 * <p>A file read whole is complete when it appears (a sink renames it into place once finished),
 * so it never grows: in a continuous source it stays at its end.
 */
final class WholeFileCursor<T> implements SplitCursor<T> {

    private final Configuration conf;
    private final Path path;
    private final WholeFileDecoding<T> format;
    private long emitted;
    private FSDataInputStream stream;
    private WholeFileDecoding.Reader<T> reader;
    private boolean atEnd;

    WholeFileCursor(FileSplit split, WholeFileDecoding<T> format, Configuration conf) {
        this.conf = conf;
        this.path = new Path(split.path());
        this.format = format;
        this.emitted = split.offset();
    }

    @Override
    public FileSplit split() {
        return new FileSplit(path.toString(), emitted);
    }

    @Override
    public boolean atEnd() {
        return atEnd;
    }

    @Override
    public int emit(ReaderOutput<T> output, int max, boolean bounded) throws IOException {
        if (atEnd) {
            return 0;
        }
        if (reader == null) {
            open();
        }
        int count = 0;
        while (count < max) {
            T record = next();
            if (record == null) {
                atEnd = true;
                close();
                break;
            }
            output.collect(record);
            emitted++;
            count++;
        }
        return count;
    }

    /** Never: a file read whole does not grow. */
    @Override
    public boolean grew(long nowNanos, long checkIntervalNanos) {
        return false;
    }

    /**
     * Opens the file and skips the records emitted before the restored checkpoint. A file that does
     * not fit the schema fails here, before its first record: every record of it would be refused.
     */
    private void open() throws IOException {
        var fs = FileSystemPaths.fileSystemOf(path, conf);
        long length = fs.getFileStatus(path).getLen();
        stream = fs.open(path);
        FSDataInputStream in = stream;
        RandomAccessInput input = new RandomAccessInput() {
            @Override
            public long length() {
                return length;
            }

            @Override
            public int read(long position, byte[] buffer, int offset, int size) throws IOException {
                return position >= length ? -1 : in.read(position, buffer, offset, (int) Math.min(size, length - position));
            }
        };
        try {
            reader = format.open(path.getName(), input);
        } catch (MalformedRecordException | IOException | RuntimeException e) {
            close();
            throw new IOException(failure(e.getMessage()), e);
        }
        for (long skipped = 0; skipped < emitted; skipped++) {
            if (next() == null) {
                throw new IOException("file " + path + " has " + skipped + " records but " + emitted
                        + " were already read from it; it was replaced after it was read");
            }
        }
    }

    private T next() throws IOException {
        try {
            return reader.next();
        } catch (IOException | RuntimeException e) {
            throw new IOException(failure(e.getMessage()), e);
        }
    }

    private String failure(String reason) {
        return "cannot read " + format.name() + " file " + path + ": " + reason;
    }

    @Override
    public void close() throws IOException {
        WholeFileDecoding.Reader<T> open = reader;
        FSDataInputStream openStream = stream;
        reader = null;
        stream = null;
        try {
            if (open != null) {
                open.close();
            }
        } finally {
            if (openStream != null) {
                openStream.close();
            }
        }
    }
}
