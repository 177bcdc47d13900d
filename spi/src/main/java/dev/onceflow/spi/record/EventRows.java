package dev.onceflow.spi.record;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * {@link Event}s as rows of {@link #SCHEMA}, for connectors that still read or write events: their
 * factories' default {@code createRowSource} and {@code createRowSink} convert with these.
 */
public final class EventRows {

    private EventRows() {
    }

    /**
     * {@code id, key, payload, count}, all not null, keyed by {@code id}. In this order, rows of it
     * were written by version 1 of {@link dev.onceflow.spi.row.RowSerializer} in exactly the bytes
     * {@link EventSerializer} writes events in, so checkpoints and savepoints taken while jobs
     * carried events restore into jobs that carry rows.
     */
    public static final Schema SCHEMA = Schema.of(List.of(
            Field.of("id", DataType.STRING.notNull()),
            Field.of("key", DataType.STRING.notNull()),
            Field.of("payload", DataType.STRING.notNull()),
            Field.of("count", DataType.LONG.notNull())), List.of("id"));

    /** The row of {@code event}. */
    public static Row toRow(Event event) {
        return Row.of(SCHEMA, event.id(), event.key(), event.payload(), event.count());
    }

    /** The event of a row of {@link #SCHEMA}. */
    public static Event toEvent(Row row) {
        return new Event((String) row.get(0), (String) row.get(1), (String) row.get(2), (Long) row.get(3));
    }

    /**
     * The conversion of rows of {@code schema} to events, for a sink that writes events: the
     * schema must have exactly the event's fields, by name, in any order, with their types (nullable
     * or not: a null in a record then fails the job, naming the field).
     *
     * @param owner how the error names the sink, such as {@code "sink 'jdbc'"}
     * @throws OptionException naming the first missing, extra or mistyped field
     */
    public static Function<Row, Event> fromSchema(Schema schema, String owner) {
        for (Field wanted : SCHEMA.fields()) {
            Optional<Field> field = schema.field(wanted.name());
            if (field.isEmpty()) {
                throw new OptionException(owner + " writes events (fields " + fieldList() + "); the input has no field '"
                        + wanted.name() + "'");
            }
            if (field.get().type().kind() != wanted.type().kind()) {
                throw new OptionException(owner + " writes events (fields " + fieldList() + "); field '" + wanted.name()
                        + "' is a " + field.get().type().withNullable(true) + ", not a "
                        + wanted.type().withNullable(true));
            }
        }
        Optional<Field> extra = schema.fields().stream().filter(f -> SCHEMA.field(f.name()).isEmpty())
                .min(Comparator.comparing(schema.fields()::indexOf));
        if (extra.isPresent()) {
            // a sink of events would drop it without a word
            throw new OptionException(owner + " writes events (fields " + fieldList() + ") and would drop field '"
                    + extra.get().name() + "' of the input");
        }
        if (schema.fields().equals(SCHEMA.fields())) {
            return EventRows::toEvent;
        }
        int id = schema.position("id");
        int key = schema.position("key");
        int payload = schema.position("payload");
        int count = schema.position("count");
        return row -> new Event(notNull(row, id), notNull(row, key), notNull(row, payload), notNull(row, count));
    }

    @SuppressWarnings("unchecked")
    private static <T> T notNull(Row row, int position) {
        Object value = row.get(position);
        if (value == null) {
            throw new IllegalArgumentException("field '" + row.schema().field(position).name()
                    + "' is null, which an event cannot hold");
        }
        return (T) value;
    }

    private static String fieldList() {
        return String.join(", ", SCHEMA.names());
    }
}
