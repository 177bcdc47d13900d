package dev.onceflow.format.event;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.format.LineBreaks;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.spi.record.EventRows;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * The {@code event} format: the {@code id,key,count,payload} lines of {@link EventFormat}, which
 * every connector read and wrote before rows, as rows of {@link EventRows#SCHEMA} (fields id, key,
 * payload, count). Files and topics written then read back the same.
 */
public final class EventFormatFactory implements FormatFactory {

    /** The event's fields, as {@link EventRows#SCHEMA}. */
    public static final Schema SCHEMA = EventRows.SCHEMA;

    @Override
    public String identifier() {
        return "event";
    }

    @Override
    public String description() {
        return "The id,key,count,payload lines of earlier releases, as rows of those four fields.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of();
    }

    @Override
    public Optional<Schema> schema(OptionValues options) {
        return Optional.of(SCHEMA);
    }

    /** A field with a line break is quoted (RFC 4180), as the file source has always read it. */
    @Override
    public LineBreaks lineBreaks(OptionValues options) {
        return LineBreaks.QUOTED;
    }

    @Override
    public RowDecoder createDecoder(Schema schema, OptionValues options) {
        checked(schema);
        // strict, as the Kafka source always read event lines: malformed UTF-8 is an error, never U+FFFD
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        return (bytes, offset, length) -> {
            String line;
            try {
                line = utf8.decode(ByteBuffer.wrap(bytes, offset, length)).toString();
            } catch (CharacterCodingException e) {
                throw new MalformedRecordException("not UTF-8 text");
            }
            try {
                return EventRows.toRow(EventFormat.parse(line));
            } catch (IllegalArgumentException e) {
                throw new MalformedRecordException(e.getMessage());
            }
        };
    }

    @Override
    public RowEncoder createEncoder(Schema schema, OptionValues options) {
        checked(schema);
        return row -> EventFormat.toLine(EventRows.toEvent(row)).getBytes(StandardCharsets.UTF_8);
    }

    /** FMT-4: exactly the event's fields. */
    private static void checked(Schema schema) {
        if (!schema.fields().equals(SCHEMA.fields())) {
            throw new OptionException("format 'event': the schema must be " + SCHEMA + ", not " + schema
                    + "; field '" + schema.fields().stream().filter(f -> !SCHEMA.fields().contains(f)).findFirst()
                    .map(Field::name).orElse(schema.field(0).name()) + "' does not fit");
        }
    }
}
