package dev.onceflow.spi.format;

import dev.onceflow.spi.row.Row;

/**
 * Turns a {@link Row} into the bytes of one record: a Kafka message's key or value, a line of a
 * file without its line end.
 *
 * <p><b>Caller and thread.</b> A connector's writer, on its own thread: one encoder per writer,
 * never called concurrently. Made by {@link FormatFactory#createEncoder}.
 *
 * <p><b>Guarantees.</b> Deterministic: equal rows, with map entries in the same order, encode to
 * equal bytes (FMT-3), so a record
 * replayed after a crash is written exactly as the first time, which idempotent sinks and
 * checksummed files rely on. The row is of the schema the encoder was made for; rows are checked
 * when they are made (ROW-2), so encoding does not fail on a value.
 */
public interface RowEncoder {

    /**
     * The bytes of {@code row}, in an array the caller owns; or {@code null} where a changelog
     * format ({@link FormatFactory#producesChanges}) folds the row into the record of the row
     * after it (FMT-8): debezium-json keeps an {@code UPDATE_BEFORE} row as the {@code before} of
     * the {@code UPDATE_AFTER} that follows it. The writer then writes no record for this row. A
     * format that does not produce changes never returns {@code null}.
     *
     * <p><b>After a crash.</b> A held row is in no checkpoint: when a checkpoint falls between it
     * and the row it waits for, the restored writer's encoder writes that row without it (an
     * update without its old content, which a reader applying changes by key needs no more than
     * the new content).
     */
    byte[] encode(Row row);
}
