package dev.onceflow.runtime.api;

import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.util.List;

/**
 * The rows a source's dead-letter sink receives (rule SRC-6): one per record the source's reader
 * could not read, with where it was and why, and its bytes as read. Every field is a function of
 * the record and its place in the input, so a replay after a crash makes the same row again, and
 * the position identifies it: {@code source} and {@code position} are the primary key, for sinks
 * that write by key.
 */
public final class DeadLetters {

    /**
     * {@code source} (the source step's uid), {@code position} (as the reader names it, for example
     * "offset 17 of partition orders-0 (format json)"), {@code reason} (one line, without the
     * record's content) and {@code record} (the bytes that did not decode).
     */
    public static final Schema SCHEMA = Schema.of(List.of(
            Field.of("source", DataType.STRING.notNull()),
            Field.of("position", DataType.STRING.notNull()),
            Field.of("reason", DataType.STRING.notNull()),
            Field.of("record", DataType.BYTES.notNull())), List.of("source", "position"));

    private DeadLetters() {
    }

    /** The dead-letter row of a rejected record. */
    public static Row of(String sourceUid, String position, String reason, byte[] record) {
        return Row.of(SCHEMA, sourceUid, position, reason, record.clone());
    }
}
