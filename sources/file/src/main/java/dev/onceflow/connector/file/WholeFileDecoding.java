package dev.onceflow.connector.file;

import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RandomAccessInput;
import dev.onceflow.spi.format.RowFileReader;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.Closeable;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link FileSource} reads files written whole, such as Parquet, whose rows are found through
 * a footer rather than by lines: {@link #rows} for rows in a whole-file format (FMT-7).
 *
 * @param <T> the source's records
 */
public interface WholeFileDecoding<T> {

    /** A name for errors, such as {@code "parquet"}. */
    String name();

    /**
     * A reader of one file's records, in the file's order; called on a reader's thread each time it
     * starts reading the file. Every reader of a file gives the same records in the same order.
     *
     * @param fileName the file's name, for records whose identity is their position
     * @throws MalformedRecordException naming the field, if the file does not fit the schema (the
     *     caller adds the file)
     * @throws IOException if the file cannot be read
     */
    Reader<T> open(String fileName, RandomAccessInput input) throws MalformedRecordException, IOException;

    /** The records of one file. */
    interface Reader<T> extends Closeable {

        /** The next record, or {@code null} after the last. */
        T next() throws IOException;
    }

    /**
     * Rows of {@code valueSchema} read by {@code format}'s file reader, followed by the
     * {@code metadata} fields: the file's name, and as {@code offset} the row's index in the file
     * (0 for its first row), which identifies it as a line's byte offset does.
     */
    static WholeFileDecoding<Row> rows(Format format, Schema valueSchema, List<LineDecoding.Metadata> metadata) {
        Objects.requireNonNull(format, "format");
        Schema rows = LineDecoding.schema(valueSchema, metadata);
        return new WholeFileDecoding<>() {
            @Override
            public String name() {
                return format.identifier();
            }

            @Override
            public Reader<Row> open(String fileName, RandomAccessInput input) throws MalformedRecordException, IOException {
                RowFileReader reader = format.createFileReader(valueSchema, input);
                return new Reader<>() {
                    private long index;

                    @Override
                    public Row next() throws IOException {
                        Row row = reader.next();
                        if (row == null || metadata.isEmpty()) {
                            return row;
                        }
                        Object[] values = Arrays.copyOf(row.values(), rows.size());
                        for (int i = 0; i < metadata.size(); i++) {
                            values[valueSchema.size() + i] = metadata.get(i) == LineDecoding.Metadata.FILE
                                    ? fileName : index;
                        }
                        index++;
                        return Row.of(rows, values);
                    }

                    @Override
                    public void close() throws IOException {
                        reader.close();
                    }
                };
            }

            @Override
            public String toString() {
                return name();
            }
        };
    }
}
