package dev.onceflow.connector.file;

import dev.onceflow.spi.source.ReaderOutput;
import java.io.IOException;

/**
 * A reader's progress through one file: {@link FileCursor} for line-delimited files, whose
 * position is a byte offset, {@link WholeFileCursor} for files read whole (Parquet), whose position
 * is a count of rows. Used on the reader's task thread only.
 */
interface SplitCursor<T> extends AutoCloseable {

    /** The split with the position after the last emitted record. */
    FileSplit split();

    /** Whether the end of the file was reached and nothing was read since. */
    boolean atEnd();

    /**
     * Emits up to {@code max} records; with {@code bounded}, the file is complete and its end is its
     * last record.
     *
     * @return the number of records emitted or rejected
     * @throws IOException if the file cannot be read, naming it
     */
    int emit(ReaderOutput<T> output, int max, boolean bounded) throws IOException;

    /** Whether the file grew since its end was reached, asking at most once per interval. */
    boolean grew(long nowNanos, long checkIntervalNanos) throws IOException;

    @Override
    void close() throws IOException;
}
