package dev.onceflow.format.raw;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The {@code raw} format: a record is one field, its bytes unchanged or its text in UTF-8. Bytes
 * that are not UTF-8 are a malformed record for the text type, never replaced by {@code U+FFFD}.
 */
public final class RawFormatFactory implements FormatFactory {

    /** The type of the one field. */
    public enum RawType {
        STRING, BYTES
    }

    public static final Option<String> FIELD = Option.stringOption("field").defaultValue("value")
            .validate(f -> !f.isEmpty(), "a field name")
            .description("The name of the one field.");

    public static final Option<RawType> TYPE = Option.enumOption("type", RawType.class).defaultValue(RawType.STRING)
            .description("string: the record's UTF-8 text; bytes: its bytes.");

    @Override
    public String identifier() {
        return "raw";
    }

    @Override
    public String description() {
        return "A record as one field: its UTF-8 text (string) or its bytes, unchanged.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(FIELD, TYPE);
    }

    @Override
    public Optional<Schema> schema(OptionValues options) {
        DataType type = options.get(TYPE) == RawType.STRING ? DataType.STRING : DataType.BYTES;
        return Optional.of(Schema.of(Field.of(options.get(FIELD), type.notNull())));
    }

    @Override
    public RowDecoder createDecoder(Schema schema, OptionValues options) {
        Schema own = checked(schema, options);
        if (options.get(TYPE) == RawType.BYTES) {
            return (bytes, offset, length) -> Row.of(own, (Object) Arrays.copyOfRange(bytes, offset, offset + length));
        }
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        return (bytes, offset, length) -> {
            try {
                return Row.of(own, utf8.decode(ByteBuffer.wrap(bytes, offset, length)).toString());
            } catch (CharacterCodingException e) {
                throw new MalformedRecordException("field '" + own.field(0).name() + "': not UTF-8 text (" + e + ")");
            }
        };
    }

    @Override
    public RowEncoder createEncoder(Schema schema, OptionValues options) {
        checked(schema, options);
        boolean text = options.get(TYPE) == RawType.STRING;
        return row -> text ? ((String) row.get(0)).getBytes(StandardCharsets.UTF_8) : ((byte[]) row.get(0)).clone();
    }

    /**
     * FMT-4: one not-null field of the options' type. A record always has bytes, so the format has
     * no null to read, and none to write.
     */
    private Schema checked(Schema schema, OptionValues options) {
        DataType expected = schema(options).orElseThrow().field(0).type();
        Field field = schema.field(schema.size() > 1 ? 1 : 0);
        if (schema.size() != 1 || !field.type().equals(expected)) {
            throw new OptionException("format 'raw': the schema must be one field of type " + expected + "; field '"
                    + field.name() + "' is " + (schema.size() > 1 ? "one more" : "a " + field.type()));
        }
        return schema;
    }
}
