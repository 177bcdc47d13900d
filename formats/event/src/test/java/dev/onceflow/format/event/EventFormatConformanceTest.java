package dev.onceflow.format.event;

import dev.onceflow.conformance.format.FormatConformanceSuite;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventRows;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The event format against rules FMT-1 to FMT-4. */
class EventFormatConformanceTest extends FormatConformanceSuite {

    @Override
    protected FormatFactory factory() {
        return new EventFormatFactory();
    }

    @Override
    protected Schema schema() {
        return EventFormatFactory.SCHEMA;
    }

    @Override
    protected List<Row> rows() {
        return List.of(EventRows.toRow(new Event("1", "key-0", "payload", 3)),
                EventRows.toRow(new Event("id, \"ü\"", "", "line\nbreak, \"quoted\" 😀", Long.MIN_VALUE)));
    }

    @Override
    protected List<Malformed> malformedRecords() {
        return List.of(Malformed.text("1,key,3", "expected 4 fields id,key,count,payload but found 3"),
                Malformed.text("1,key,three,payload", "count 'three' is not a number"),
                Malformed.text("", "expected 4 fields"),
                Malformed.text("1,\"key,3,payload", "unterminated quote"),
                new Malformed(new byte[] {'1', ',', 'k', ',', '0', ',', (byte) 0xC3, '('}, "not UTF-8 text"));
    }

    @Override
    protected Optional<Map.Entry<Schema, String>> unrepresentableSchema() {
        return Optional.of(Map.entry(Schema.of(Field.of("id", DataType.STRING.notNull()), Field.of("key", DataType.INT)),
                "key"));
    }
}
