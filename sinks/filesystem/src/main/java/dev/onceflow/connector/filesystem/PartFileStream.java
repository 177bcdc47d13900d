package dev.onceflow.connector.filesystem;

import dev.onceflow.spi.format.RowFileWriter;
import dev.onceflow.spi.row.Row;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.function.Function;
import org.apache.hadoop.fs.FSDataOutputStream;

/**
 * The open stream of one in-progress part file: lines, or one whole file of a format that writes
 * whole files (FMT-5). Its length as stored (after compression) becomes the part's pre-committed
 * length.
 */
final class PartFileStream implements AutoCloseable {

    static final int BUFFER_BYTES = 64 * 1024;

    private final PartFile name;
    private final FSDataOutputStream out;
    /** The compressor over the file, or the file itself (unclosable): receives whole buffers. */
    private final OutputStream encoded;
    /**
     * Batches line-sized writes, since a DFS output stream does per-call work. Not a
     * {@link java.io.BufferedOutputStream}: its {@code write} is synchronized, and as a field of
     * this object its lock cannot be elided; it cost about 8 % of a task thread's time in
     * {@code HdfsBenchmark}. Only the task thread writes.
     */
    private final byte[] buffer = new byte[BUFFER_BYTES];
    private int buffered;
    private final long openedAtNanos;
    private long bytesWritten;
    /** Writes the whole file of a whole-file format; null for lines. */
    private final RowFileWriter fileWriter;

    /**
     * A part file of lines, compressed as {@code compression} says, starting with {@code header} and
     * a line end unless the header is empty (FMT-6): first in the file, so every pre-committed
     * length, and every file truncated back to one, holds it once.
     */
    PartFileStream(PartFile name, FSDataOutputStream out, Compression compression, byte[] header, long openedAtNanos)
            throws IOException {
        this.name = name;
        this.out = out;
        this.encoded = compression.wrap(unclosable(out));
        this.openedAtNanos = openedAtNanos;
        this.fileWriter = null;
        if (header.length > 0) {
            write(header);
        }
    }

    /** A part file that is one whole file of a format, written by the writer {@code fileWriters} makes. */
    PartFileStream(PartFile name, FSDataOutputStream out, Function<OutputStream, RowFileWriter> fileWriters,
            long openedAtNanos) {
        this.name = name;
        this.out = out;
        this.encoded = unclosable(out);
        this.openedAtNanos = openedAtNanos;
        this.fileWriter = fileWriters.apply(encoded);
    }

    /**
     * The file, whose close only flushes: the compressor's or format's end (in finish) must not
     * close it, as syncAndClose does that after it made the file durable.
     */
    private static OutputStream unclosable(FSDataOutputStream out) {
        return new FilterOutputStream(out) {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
            }

            @Override
            public void close() throws IOException {
                out.flush();
            }
        };
    }

    PartFile name() {
        return name;
    }

    long openedAtNanos() {
        return openedAtNanos;
    }

    /** Appends a record's bytes and a line end. */
    void write(byte[] record) throws IOException {
        int length = record.length + 1;
        if (length > buffer.length - buffered) {
            flushBuffer();
        }
        if (length >= buffer.length) {
            encoded.write(record);
            encoded.write('\n');
        } else {
            System.arraycopy(record, 0, buffer, buffered, record.length);
            buffer[buffered + record.length] = '\n';
            buffered += length;
        }
        bytesWritten += length;
    }

    /** Adds a row to the whole file of a whole-file format. */
    void write(Row row) throws IOException {
        fileWriter.write(row);
    }

    private void flushBuffer() throws IOException {
        if (buffered > 0) {
            encoded.write(buffer, 0, buffered);
            buffered = 0;
        }
    }

    /** Bytes of text written so far, before compression. */
    long bytesWritten() {
        return bytesWritten;
    }

    /**
     * Ends the part: flushes the buffer and finishes the compressed format, if any, or the whole
     * file of a whole-file format (its footer), into the file.
     * Nothing may be written after. The bytes are in the file system client, not yet durable:
     * {@link #syncAndClose} does that, and may run on another thread.
     *
     * @return the part file with the number of bytes in the file, which is final
     */
    PartFile finish() throws IOException {
        if (fileWriter != null) {
            fileWriter.finish();
        }
        flushBuffer();
        encoded.close();
        return name.withLength(out.getPos());
    }

    /** Makes the finished part durable and closes the file (2PC-2). */
    void syncAndClose() throws IOException {
        // hsync, not hflush: the data must survive a machine failure, not just this process's.
        out.hsync();
        out.close();
    }

    /** Closes the file without a sync; what it holds is discarded by the caller. */
    @Override
    public void close() throws IOException {
        out.close();
    }
}
