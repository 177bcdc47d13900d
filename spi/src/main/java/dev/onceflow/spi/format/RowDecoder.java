package dev.onceflow.spi.format;

import dev.onceflow.spi.row.Row;

/**
 * Turns the bytes of one record (a Kafka message's key or value, a line of a file without its line
 * end) into a {@link Row} of the schema the decoder was made for.
 *
 * <p><b>Caller and thread.</b> A connector's reader, on its own thread: one decoder per reader,
 * never called concurrently, so a decoder may keep buffers between calls. Made by
 * {@link FormatFactory#createDecoder}.
 *
 * <p><b>Guarantees.</b> The same bytes always decode to the same row (a replay after a crash must
 * reproduce what the first attempt read). A record that does not fit is an exception, never a row
 * with a value guessed, defaulted or left out (FMT-2).
 */
public interface RowDecoder {

    /**
     * Decodes {@code length} bytes of {@code bytes} from {@code offset}. The decoder does not keep
     * a reference to {@code bytes} after it returns, so the caller may reuse the array.
     *
     * @throws MalformedRecordException with a one-line reason naming the field, if the bytes are not
     *     a record of the schema
     */
    Row decode(byte[] bytes, int offset, int length) throws MalformedRecordException;

    /** Decodes all of {@code bytes}. */
    default Row decode(byte[] bytes) throws MalformedRecordException {
        return decode(bytes, 0, bytes.length);
    }
}
