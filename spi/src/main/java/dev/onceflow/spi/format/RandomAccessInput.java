package dev.onceflow.spi.format;

import java.io.IOException;

/**
 * The bytes of one complete file, read at any position: what a {@link RowFileReader} reads, since a
 * whole-file format such as Parquet finds its rows through a footer at the file's end. Made by a file
 * source over its file system's stream; the format knows nothing of where the bytes live.
 *
 * <p><b>Caller and thread.</b> The {@link RowFileReader} made over it, on the thread that calls that
 * reader; never concurrently. The file source owns it and closes it after the reader.
 *
 * <p>The file does not change while it is read: a file source reads only files written whole.
 */
public interface RandomAccessInput {

    /**
     * The file's length in bytes, the same at every call.
     *
     * @throws IOException if the file system cannot tell
     */
    long length() throws IOException;

    /**
     * Reads up to {@code length} bytes at byte {@code position} of the file into {@code buffer} from
     * {@code offset}. Independent of any earlier read: there is no current position.
     *
     * @return the number of bytes read, at least 1 if {@code length} is positive and {@code position}
     *     is before the end, or -1 if {@code position} is at or past the end
     * @throws IOException if the file cannot be read
     */
    int read(long position, byte[] buffer, int offset, int length) throws IOException;
}
