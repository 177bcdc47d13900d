package dev.onceflow.connector.filesystem;

import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.LineBreaks;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.format.RowFileWriter;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * How a {@link FileSystemSink} turns its records into part files: one line per record (an encoder
 * per writer, and where records may hold line breaks), or, for a format that writes whole files
 * (FMT-5, such as Parquet), a file writer per part file. Immutable; holds no encoder itself.
 *
 * @param <T> the sink's records
 */
public final class LineFormat<T> {

    private final String name;
    private final Supplier<Function<T, byte[]>> encoders;
    private final LineBreaks lineBreaks;
    /** Makes the writer of one part file of a whole-file format; null for a line format. */
    private final Function<OutputStream, RowFileWriter> fileWriters;
    /** The line every part file of lines starts with (FMT-6), without its line end; empty for none. */
    private final byte[] header;

    private LineFormat(String name, Supplier<Function<T, byte[]>> encoders, LineBreaks lineBreaks,
            Function<OutputStream, RowFileWriter> fileWriters, byte[] header) {
        this.name = name;
        this.encoders = encoders;
        this.lineBreaks = lineBreaks;
        this.fileWriters = fileWriters;
        this.header = header;
    }

    /** Events as {@link EventFormat} lines, which quote a field with a line break. */
    public static LineFormat<Event> events() {
        return new LineFormat<>("event", () -> event -> EventFormat.toLine(event).getBytes(StandardCharsets.UTF_8),
                LineBreaks.QUOTED, null, new byte[0]);
    }

    /**
     * Rows of {@code schema} in {@code format}, as lines or, if the format writes whole files, as one
     * file of the format per part file; checks now that the format can write them (FMT-4).
     */
    public static LineFormat<Row> rows(Format format, Schema schema) {
        Objects.requireNonNull(format, "format");
        if (format.writesWholeFiles()) {
            format.createFileWriter(schema, OutputStream.nullOutputStream());
            return new LineFormat<>(format.identifier(), null, LineBreaks.NEVER,
                    out -> format.createFileWriter(schema, out), new byte[0]);
        }
        format.createEncoder(schema);
        return new LineFormat<>(format.identifier(), () -> {
            RowEncoder encoder = format.createEncoder(schema);
            return encoder::encode;
        }, format.lineBreaks(), null, format.fileHeader(schema));
    }

    /** The format's name, for errors. */
    String name() {
        return name;
    }

    /**
     * Whether part files are whole files of the format (FMT-5), written by {@link #newFileWriter}
     * and finished at every checkpoint, rather than lines.
     */
    boolean writesWholeFiles() {
        return fileWriters != null;
    }

    /**
     * The header line (without its line end) each part file of lines starts with, or empty (FMT-6).
     * The caller must not change it.
     */
    byte[] header() {
        return header;
    }

    /** Appended to the final names of a whole-file format's part files: {@code .parquet}. */
    String fileExtension() {
        return "." + name;
    }

    /** A new encoder, for one writer: encoders need not be thread-safe. Null for a whole-file format. */
    Function<T, byte[]> newEncoder() {
        return encoders == null ? null : encoders.get();
    }

    /** The writer of one part file of a whole-file format, over the file's stream. */
    RowFileWriter newFileWriter(OutputStream out) {
        return fileWriters.apply(out);
    }

    /**
     * Whether the writer must check each record for line breaks: a record of a format that does not
     * mark them would read back as two records.
     */
    boolean mustCheckLineBreaks() {
        return lineBreaks == LineBreaks.ANYWHERE;
    }

    @Override
    public String toString() {
        return name;
    }
}
