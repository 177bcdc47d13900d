package dev.onceflow.spi.format;

import dev.onceflow.spi.row.Row;

/**
 * Turns a {@link Row} into the bytes of one record: a Kafka message's key or value, a line of a
 * file without its line end.
 *
 * <p><b>Caller and thread.</b> A connector's writer, on its own thread: one encoder per writer,
 * never called concurrently. Made by {@link FormatFactory#createEncoder}.
 *
 * <p><b>Guarantees.</b> Deterministic: equal rows encode to equal bytes (FMT-3), so a record
 * replayed after a crash is written exactly as the first time, which idempotent sinks and
 * checksummed files rely on. The row is of the schema the encoder was made for; rows are checked
 * when they are made (ROW-2), so encoding does not fail on a value.
 */
public interface RowEncoder {

    /** The bytes of {@code row}, in an array the caller owns. */
    byte[] encode(Row row);

    /**
     * Whether the bytes of every record are free of line breaks ({@code \n} and {@code \r}), so that
     * files can hold one record per line and be read back by splitting at line ends. A format whose
     * encoded values may contain a line break (CSV quotes one as RFC 4180 allows) answers
     * {@code false}; a connector writing line-delimited files then refuses it, or the rows that
     * would break a line, rather than writing a file it cannot read back.
     */
    boolean lineSafe();
}
