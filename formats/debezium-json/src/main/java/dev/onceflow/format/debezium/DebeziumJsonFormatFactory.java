package dev.onceflow.format.debezium;

import dev.onceflow.format.json.JsonFormatFactory;
import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.format.LineBreaks;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.row.Schema;
import java.util.List;
import java.util.Map;

/**
 * The {@code debezium-json} format: each record is one of Debezium's change events
 * ({@code {before, after, op, ...}}), whose {@code before} and {@code after} rows are objects of
 * the {@code json} format. A changelog format (FMT-8): its rows are inserts, updates and deletes.
 */
public final class DebeziumJsonFormatFactory implements FormatFactory {

    public static final Option<Boolean> SCHEMA_INCLUDE = Option.booleanOption("schema-include")
            .defaultValue(false)
            .description("true: each record is Kafka Connect's {schema, payload} wrapper around the change event "
                    + "(JsonConverter with schemas.enable=true), and Debezium's typed values (epoch timestamps, "
                    + "binary decimals) are read by the schema; false: the record is the change event itself. A "
                    + "record of the other shape is malformed. Reading only: written events carry no schema.");

    static final String IDENTIFIER = "debezium-json";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public String description() {
        return "Debezium's change events as JSON: c and r are inserts, u an update (its before and after), d a "
                + "delete; tombstones are skipped. Needs a schema with a primary key.";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(SCHEMA_INCLUDE);
    }

    /** The json format escapes control characters, and the envelope adds no white space. */
    @Override
    public LineBreaks lineBreaks(OptionValues options) {
        return LineBreaks.NEVER;
    }

    @Override
    public boolean producesChanges(OptionValues options) {
        return true;
    }

    @Override
    public RowDecoder createDecoder(Schema schema, OptionValues options) {
        return new DebeziumJsonRowDecoder(schema, rowFormat().createDecoder(checked(schema), rowOptions()),
                options.get(SCHEMA_INCLUDE));
    }

    @Override
    public RowEncoder createEncoder(Schema schema, OptionValues options) {
        if (options.get(SCHEMA_INCLUDE)) {
            throw new OptionException("format '" + IDENTIFIER + "': option 'schema-include' is for reading; written "
                    + "events carry no schema, so set schema-include: false on a sink");
        }
        return new DebeziumJsonRowEncoder(checked(schema), rowFormat().createEncoder(schema, rowOptions()));
    }

    /** A change names its row by primary key (CHG-1): without one, updates and deletes mean nothing. */
    private static Schema checked(Schema schema) {
        if (schema.primaryKey().isEmpty()) {
            throw new OptionException("format '" + IDENTIFIER + "' reads and writes changes, which name rows by "
                    + "primary key, and " + schema + " has none; declare primary-key: in the schema");
        }
        return schema;
    }

    private static JsonFormatFactory rowFormat() {
        return new JsonFormatFactory();
    }

    /** Debezium's rows hold every column of the table: those the schema does not name are skipped. */
    private static OptionValues rowOptions() {
        return OptionValues.validate("format '" + IDENTIFIER + "'", Map.of(), rowFormat().options());
    }
}
