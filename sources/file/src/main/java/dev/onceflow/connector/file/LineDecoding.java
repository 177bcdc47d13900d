package dev.onceflow.connector.file;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.LineBreaks;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.util.ArrayList;
import java.util.List;
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

    /**
     * Whether each file's first line is a header (FMT-6), which the reader checks with
     * {@link #checkHeader} and never parses as a record. False by default.
     */
    default boolean hasHeader() {
        return false;
    }

    /**
     * Checks a file's first line where {@link #hasHeader}; called on a reader's thread, once per
     * file read from its start (a file resumed past its header is not checked again).
     *
     * @throws MalformedRecordException naming the first column that differs (the caller adds the file)
     */
    default void checkHeader(byte[] line) throws MalformedRecordException {
        throw new IllegalStateException(name() + " files have no header line");
    }

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
        return rows(format, schema, List.of());
    }

    /** A line's place in its file, which a source can add to its row as a field. */
    enum Metadata {
        /** The file's name. */
        FILE(DataType.STRING.notNull()),
        /** The line's byte offset in its file: with the file, the record's identity. */
        OFFSET(DataType.LONG.notNull());

        private final DataType type;

        Metadata(DataType type) {
            this.type = type;
        }

        /** The field's name: the constant in lower case. */
        String fieldName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * The value's fields followed by the metadata fields. Keyed by the value's primary key, or, when
     * it has none and both file and offset are asked for, by those two: the line's position, which a
     * replay reproduces.
     *
     * @throws OptionException if a metadata field has the name of a value field, or is asked twice
     */
    static Schema schema(Schema valueSchema, List<Metadata> metadata) {
        if (metadata.isEmpty()) {
            return valueSchema;
        }
        List<Field> fields = new ArrayList<>(valueSchema.fields());
        for (Metadata m : metadata) {
            if (fields.stream().anyMatch(f -> f.name().equals(m.fieldName()))) {
                throw new OptionException("metadata field '" + m.fieldName() + "' is asked twice, or has the name "
                        + "of a field of the records' schema; rename that field");
            }
            fields.add(Field.of(m.fieldName(), m.type));
        }
        return Schema.of(fields, valueSchema.primaryKey().isEmpty() && metadata.containsAll(List.of(Metadata.values()))
                ? List.of(Metadata.FILE.fieldName(), Metadata.OFFSET.fieldName()) : valueSchema.primaryKey());
    }

    /**
     * Rows of {@code schema} in {@code format}, followed by the {@code metadata} fields; checks now
     * that the format can read them (FMT-4).
     */
    static LineDecoding<Row> rows(Format format, Schema valueSchema, List<Metadata> metadata) {
        Objects.requireNonNull(format, "format");
        Schema schema = valueSchema;
        Schema rows = schema(valueSchema, metadata);
        if (format.producesChanges()) {
            // its lines are read one row each, so an update's two rows and a tombstone have no place (FMT-8)
            throw new OptionException("source 'file': format '" + format.identifier() + "' reads changes, which "
                    + "this source does not take yet; read them from a kafka source");
        }
        format.createDecoder(schema);
        boolean quoted = format.lineBreaks() == LineBreaks.QUOTED;
        boolean header = format.fileHeader(schema).length > 0;
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
            public boolean hasHeader() {
                return header;
            }

            @Override
            public void checkHeader(byte[] line) throws MalformedRecordException {
                format.checkFileHeader(schema, line);
            }

            @Override
            public Parser<Row> newParser() {
                RowDecoder decoder = format.createDecoder(schema);
                if (metadata.isEmpty()) {
                    return (fileName, offset, line) -> decoder.decode(line);
                }
                int size = schema.size();
                return (fileName, offset, line) -> {
                    Object[] values = java.util.Arrays.copyOf(decoder.decode(line).values(), rows.size());
                    for (int i = 0; i < metadata.size(); i++) {
                        values[size + i] = metadata.get(i) == Metadata.FILE ? fileName : offset;
                    }
                    return Row.of(rows, values);
                };
            }

            @Override
            public String toString() {
                return name();
            }
        };
    }
}
