package dev.onceflow.spi.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowSerializer;
import dev.onceflow.spi.row.Schema;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventRowsTest {

    private static final Event EVENT = new Event("id-ü-1", "key-3", "päyload, \"quoted\"\nline", 42);

    /** In-flight records and write-ahead segments of checkpoints taken while jobs carried events restore as rows. */
    @Test
    void rowsOfTheEventSchemaSerializeToTheBytesOfEvents() throws Exception {
        RowSerializer rows = RowSerializer.of(EventRows.SCHEMA);
        byte[] eventBytes = EventSerializer.INSTANCE.serialize(EVENT);

        // version 1 of rows, which had no kind, is the event's bytes; version 2 puts the kind first
        assertThat(EventSerializer.INSTANCE.version()).isEqualTo(1);
        byte[] rowBytes = rows.serialize(EventRows.toRow(EVENT));
        assertThat(Arrays.copyOfRange(rowBytes, 1, rowBytes.length)).isEqualTo(eventBytes);
        assertThat(rows.deserialize(1, eventBytes)).isEqualTo(EventRows.toRow(EVENT));
        assertThat(EventRows.toEvent(rows.deserialize(1, eventBytes))).isEqualTo(EVENT);
    }

    @Test
    void aSinkOfEventsTakesTheEventsFieldsInAnyOrder() {
        Schema reordered = Schema.of(Field.of("count", DataType.LONG), Field.of("payload", DataType.STRING),
                Field.of("id", DataType.STRING), Field.of("key", DataType.STRING));

        assertThat(EventRows.fromSchema(reordered, "sink 'x'").apply(Row.of(reordered, 42L, EVENT.payload(), EVENT.id(),
                EVENT.key()))).isEqualTo(EVENT);
        assertThat(EventRows.fromSchema(EventRows.SCHEMA, "sink 'x'").apply(EventRows.toRow(EVENT))).isEqualTo(EVENT);
    }

    @Test
    void aSinkOfEventsRefusesInputThatIsNotAnEventNamingTheField() {
        Schema missing = Schema.of(Field.of("id", DataType.STRING), Field.of("key", DataType.STRING));
        Schema extra = Schema.of(List.of(Field.of("id", DataType.STRING), Field.of("key", DataType.STRING),
                Field.of("payload", DataType.STRING), Field.of("count", DataType.LONG), Field.of("amount", DataType.DOUBLE)),
                List.of());
        Schema mistyped = Schema.of(Field.of("id", DataType.LONG), Field.of("key", DataType.STRING),
                Field.of("payload", DataType.STRING), Field.of("count", DataType.LONG));

        assertThatThrownBy(() -> EventRows.fromSchema(missing, "sink 'jdbc'")).isInstanceOf(OptionException.class)
                .hasMessage("sink 'jdbc' writes events (fields id, key, payload, count); the input has no field 'payload'");
        assertThatThrownBy(() -> EventRows.fromSchema(extra, "sink 'jdbc'"))
                .hasMessage("sink 'jdbc' writes events (fields id, key, payload, count) and would drop field 'amount' of "
                        + "the input");
        assertThatThrownBy(() -> EventRows.fromSchema(mistyped, "sink 'jdbc'"))
                .hasMessage("sink 'jdbc' writes events (fields id, key, payload, count); field 'id' is a long, not a string");
    }
}
