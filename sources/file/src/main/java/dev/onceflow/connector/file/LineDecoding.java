package dev.onceflow.connector.file;

import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.LineBreaks;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.util.Objects;

/**
 * How a {@link FileSource} turns the lines of its files into records: {@link FileFormat} for
 * events, {@link #rows} for rows in any format.
 *
 * @param <T> the source's records
 */
public interface LineDecoding<T> {

    /** A name for errors, such as {@code "json"}. */
    String name();

    /** Whether line breaks inside double-quoted fields (RFC 4180) belong to the line. */
    boolean quotedFields();

    /** A parser for one reader: parsers need not be thread-safe. */
    Parser<T> newParser();

    /** Turns one line into a record. */
    @FunctionalInterface
    interface Parser<T> {

        /**
         * The record of one line's bytes, without its line end.
         *
         * @param fileName the file's name, for records whose identity is their position
         * @param offset the line's byte offset in the file
         * @param line the line's bytes, which the parser may keep
         * @throws MalformedRecordException if the line is not a record, with the reason (the caller
         *     adds the file and the offset)
         */
        T parse(String fileName, long offset, byte[] line) throws MalformedRecordException;
    }

    /** Rows of {@code schema} in {@code format}; checks now that the format can read them (FMT-4). */
    static LineDecoding<Row> rows(Format format, Schema schema) {
        Objects.requireNonNull(format, "format");
        format.createDecoder(schema);
        boolean quoted = format.lineBreaks() == LineBreaks.QUOTED;
        return new LineDecoding<>() {
            @Override
            public String name() {
                return format.identifier();
            }

            @Override
            public boolean quotedFields() {
                return quoted;
            }

            @Override
            public Parser<Row> newParser() {
                RowDecoder decoder = format.createDecoder(schema);
                return (fileName, offset, line) -> decoder.decode(line);
            }

            @Override
            public String toString() {
                return name();
            }
        };
    }
}
