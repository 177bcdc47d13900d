package dev.onceflow.spi.factory;

import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.sink.Sink;
import java.util.Objects;
import java.util.function.Function;

/**
 * What a {@link SinkFactory} makes for a job file: a sink and, for a sink whose records are not
 * rows yet, how each row becomes one of its records. The runtime applies {@code fromRow} in the
 * sink's own task, right before the writer.
 *
 * @param sink the sink
 * @param fromRow turns a row of the input schema into a record; called on the task thread; the
 *     identity for a sink of rows
 * @param <T> the sink's records
 */
public record RowSink<T>(Sink<T> sink, Function<Row, T> fromRow) {

    public RowSink {
        Objects.requireNonNull(sink, "sink");
        Objects.requireNonNull(fromRow, "fromRow");
    }

    private static final Function<Row, Row> AS_IS = row -> row;

    /** A sink that writes rows itself. */
    public static RowSink<Row> ofRows(Sink<Row> sink) {
        return new RowSink<>(sink, AS_IS);
    }

    /** Whether the sink writes rows itself, with nothing to convert. */
    public boolean writesRows() {
        return fromRow == AS_IS;
    }
}
