package dev.onceflow.connector.filesystem;

import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.LineBreaks;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Function;

/**
 * How a {@link FileSystemSink} turns its records into the lines of part files: an encoder per
 * writer, and where records may hold line breaks. Immutable; holds no encoder itself.
 *
 * @param <T> the sink's records
 */
public final class LineFormat<T> {

    private final String name;
    private final java.util.function.Supplier<Function<T, byte[]>> encoders;
    private final LineBreaks lineBreaks;

    private LineFormat(String name, java.util.function.Supplier<Function<T, byte[]>> encoders, LineBreaks lineBreaks) {
        this.name = name;
        this.encoders = encoders;
        this.lineBreaks = lineBreaks;
    }

    /** Events as {@link EventFormat} lines, which quote a field with a line break. */
    public static LineFormat<Event> events() {
        return new LineFormat<>("event", () -> event -> EventFormat.toLine(event).getBytes(StandardCharsets.UTF_8),
                LineBreaks.QUOTED);
    }

    /** Rows of {@code schema} in {@code format}; checks now that the format can write them (FMT-4). */
    public static LineFormat<Row> rows(Format format, Schema schema) {
        Objects.requireNonNull(format, "format");
        format.createEncoder(schema);
        return new LineFormat<>(format.identifier(), () -> {
            RowEncoder encoder = format.createEncoder(schema);
            return encoder::encode;
        }, format.lineBreaks());
    }

    /** The format's name, for errors. */
    String name() {
        return name;
    }

    /** A new encoder, for one writer: encoders need not be thread-safe. */
    Function<T, byte[]> newEncoder() {
        return encoders.get();
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
