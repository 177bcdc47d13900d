package dev.onceflow.spi.format;

import dev.onceflow.spi.row.Row;
import java.util.List;

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

    /**
     * Decodes one record into the rows it holds, in the order they apply (FMT-8): one for most
     * formats, which is what the default gives; a changelog format ({@link FormatFactory#producesChanges})
     * gives two for an update that carries its old content ({@code UPDATE_BEFORE}, then
     * {@code UPDATE_AFTER}).
     *
     * <p><b>Caller and thread.</b> As {@link #decode}: a connector that reads a format producing
     * changes calls this method, never {@link #decode}, and hands every row on, in this order,
     * before the next record's, with the record's position (offset) moving past the record only
     * after the last of them, so a checkpoint never falls between the rows of one record.
     *
     * <p><b>After a crash.</b> The same bytes give the same rows, so a replayed record yields both
     * rows of an update again, never one of them.
     *
     * @return the rows, in an immutable list; never empty
     * @throws MalformedRecordException as {@link #decode}
     */
    default List<Row> decodeRows(byte[] bytes, int offset, int length) throws MalformedRecordException {
        return List.of(decode(bytes, offset, length));
    }

    /** Decodes all of {@code bytes} into the rows they hold; see {@link #decodeRows(byte[], int, int)}. */
    default List<Row> decodeRows(byte[] bytes) throws MalformedRecordException {
        return decodeRows(bytes, 0, bytes.length);
    }

    /**
     * The rows of a record without a value: a Kafka tombstone, a key with a null value, which
     * Debezium writes after a delete so that log compaction can drop the key. A format for which
     * such a record says nothing (debezium-json: the delete before it already did) returns an
     * empty list, and the connector emits nothing for the record but moves its position past it
     * (FMT-8). The default, right for every format whose records always have a value, refuses it.
     *
     * <p><b>Caller and thread.</b> A connector's reader, on its own thread, for each record whose
     * value is absent (not empty: an empty value is decoded as bytes).
     *
     * <p><b>After a crash.</b> A replayed tombstone gives the same rows again: none, or the same error.
     *
     * @throws MalformedRecordException if the format has no meaning for a record without a value
     */
    default List<Row> decodeAbsent() throws MalformedRecordException {
        throw new MalformedRecordException("it has no value (a tombstone)");
    }
}
