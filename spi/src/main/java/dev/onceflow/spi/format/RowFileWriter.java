package dev.onceflow.spi.format;

import dev.onceflow.spi.row.Row;
import java.io.IOException;

/**
 * Writes rows into one whole file of a format, such as Parquet, whose files end with a footer and
 * so can be neither appended to nor cut at a record: the file is valid only once {@link #finish}
 * wrote its end. Made by {@link FormatFactory#createFileWriter} over the stream of one new file.
 * Rule FMT-5 in {@code docs/spec.md}.
 *
 * <p><b>Caller and thread.</b> A file sink's writer, on its own (task) thread: one writer per file,
 * never called concurrently. The sink calls {@link #finish} before it pre-commits the file, so a
 * pre-committed file is always complete.
 *
 * <p><b>After a crash.</b> A file whose writer was not finished is incomplete and is never made
 * visible: the sink discards it, and its rows are replayed into a new file. A writer keeps nothing
 * that outlives the process, so there is nothing of it to recover.
 */
public interface RowFileWriter {

    /**
     * Adds {@code row} to the file. Rows may stay buffered in memory until {@link #finish}.
     *
     * @throws IOException if the stream fails, or with one line naming the field if a value does not
     *     fit what the format stores (a time finer than it keeps); the file is then unusable and the
     *     caller discards it
     */
    void write(Row row) throws IOException;

    /**
     * Writes what is buffered and the file's end (its footer) into the stream and flushes the
     * stream, without closing it: the caller makes it durable and closes it. Called once; nothing
     * may be written after.
     *
     * @throws IOException if the stream fails; the file is then unusable and the caller discards it
     */
    void finish() throws IOException;
}
