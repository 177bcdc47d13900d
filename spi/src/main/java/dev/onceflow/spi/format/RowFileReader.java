package dev.onceflow.spi.format;

import dev.onceflow.spi.row.Row;
import java.io.Closeable;
import java.io.IOException;

/**
 * Reads the rows of one whole file of a format, such as Parquet, in the order the file holds them.
 * Made by {@link FormatFactory#createFileReader} over the file's bytes. Rule FMT-7 in
 * {@code docs/spec.md}.
 *
 * <p><b>Caller and thread.</b> A file source's reader, on its own (task) thread: one reader per
 * file, never called concurrently. The source counts the rows it emitted from the file; that count
 * is its position in the file.
 *
 * <p><b>After a crash.</b> A reader keeps nothing that outlives the process. The source makes a new
 * one over the same file and skips the rows it had emitted before the restored checkpoint: since a
 * file gives the same rows in the same order to every reader (FMT-7), the next row is the first it
 * had not emitted (SRC-1).
 */
public interface RowFileReader extends Closeable {

    /**
     * The file's next row, of the schema the reader was made for, or {@code null} once every row was
     * returned (and at every call after that).
     *
     * @throws IOException if the file is corrupt or cannot be read, with one line saying what; the
     *     caller adds the file's name and fails rather than skip rows
     */
    Row next() throws IOException;

    /** Releases what the reader holds, such as buffers. Does not close the {@link RandomAccessInput}. */
    @Override
    void close() throws IOException;
}
