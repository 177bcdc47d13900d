package dev.onceflow.spi.factory;

import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowSerializer;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import dev.onceflow.spi.source.ReplayableSource;
import java.util.Objects;
import java.util.function.Function;

/**
 * What a {@link SourceFactory} makes for a job file: a source, the schema of the rows it yields,
 * and, for a source whose records are not rows yet, how each becomes one. The runtime applies
 * {@code toRow} in the source's own task, right after the reader emits.
 *
 * @param schema the schema of every row
 * @param source the source
 * @param toRow turns a record into a row of {@code schema}; called on the task thread; the
 *     identity for a source of rows
 * @param recordSerializer writes the source's records where the runtime must keep them before
 *     {@code toRow} (in-flight records of unaligned checkpoints)
 * @param <T> the source's records
 */
public record RowSource<T>(Schema schema, ReplayableSource<T, ?, ?> source, Function<T, Row> toRow,
        SimpleVersionedSerializer<T> recordSerializer) {

    public RowSource {
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(toRow, "toRow");
        Objects.requireNonNull(recordSerializer, "recordSerializer");
    }

    private static final Function<Row, Row> AS_IS = row -> row;

    /** A source that yields rows of {@code schema} itself. */
    public static RowSource<Row> ofRows(Schema schema, ReplayableSource<Row, ?, ?> source) {
        return new RowSource<>(schema, source, AS_IS, RowSerializer.of(schema));
    }

    /** Whether the source yields rows itself, with nothing to convert. */
    public boolean yieldsRows() {
        return toRow == AS_IS;
    }
}
