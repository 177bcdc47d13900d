package dev.onceflow.runtime.cli;

import dev.onceflow.runtime.api.Collector;
import dev.onceflow.runtime.api.KeyedProcessFunction;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.row.TextValues;
import dev.onceflow.spi.serialization.Serializers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code count-by-key} step: emits each row with the running count of its key in the count
 * field, which it adds to the rows (a {@code long not null} after the input's fields) unless they
 * have a long field of that name, which it then sets. Because the count is checkpointed state,
 * lost or doubled state after a crash shows up as a wrong count.
 *
 * <p>State is keyed by the text of the key field ({@link TextValues}), so jobs that counted events by
 * their {@code key} restore their counts.
 */
public final class CountByKey extends KeyedProcessFunction<String, Row, Row> {

    static final Option<String> KEY = Option.stringOption("key").defaultValue("key")
            .description("The field to count by: any scalar field; a record whose key is null fails the job.");
    static final Option<String> COUNT = Option.stringOption("count").defaultValue("count")
            .description("The field that receives the running count: a long field of the input, or a new field "
                    + "added after the input's fields.");

    static final List<Option<?>> OPTIONS = List.of(KEY, COUNT);

    private final Fields fields;
    private ValueState<Long> count;

    private CountByKey(Fields fields) {
        this.fields = fields;
    }

    /**
     * The step's key and count fields in the input schema, checked before the job runs, and the
     * schema of its output. Public so that a Java program (the benchmarks) builds the step exactly
     * as the job-file loader does.
     */
    public record Fields(int key, DataType keyType, int count, Schema output) {

        /** The fields {@code key} and {@code count} of {@code schema}, as the step's options name them. */
        public static Fields of(Schema schema, String key, String count) {
            return of(schema, OptionValues.validate("count-by-key", Map.of("key", key, "count", count), OPTIONS),
                    "count-by-key");
        }

        static Fields of(Schema schema, OptionValues options, String owner) {
            String keyName = options.get(KEY);
            String countName = options.get(COUNT);
            Field key = schema.field(keyName).orElseThrow(() -> new OptionException(owner + ": key field '" + keyName
                    + "' is not a field of the input; fields: " + String.join(", ", schema.names())));
            if (key.type().isNested()) {
                throw new OptionException(owner + ": key field '" + keyName + "' is a " + key.type()
                        + "; counting by key needs a scalar field");
            }
            Optional<Field> count = schema.field(countName);
            if (count.isEmpty()) {
                List<Field> output = new ArrayList<>(schema.fields());
                output.add(Field.of(countName, DataType.LONG.notNull()));
                return new Fields(schema.position(keyName), key.type(), schema.size(),
                        Schema.of(output, schema.primaryKey()));
            }
            if (count.get().type().kind() != DataType.Kind.LONG) {
                throw new OptionException(owner + ": count field '" + countName + "' is a " + count.get().type()
                        + "; the running count needs a long field, or a name that is not a field of the input");
            }
            return new Fields(schema.position(keyName), key.type(), schema.position(countName), schema);
        }

        /** {@code row} with its key's count. */
        Row counted(Row row, long value) {
            if (count < row.arity()) {
                return row.with(count, value);
            }
            Object[] values = java.util.Arrays.copyOf(row.values(), row.arity() + 1);
            values[count] = value;
            return Row.of(output, values);
        }

        /** The key of {@code row}: its key field's text. */
        public String keyOf(Row row) {
            Object value = row.get(key);
            if (value == null) {
                throw new IllegalStateException("count-by-key: key field '" + row.schema().field(key).name()
                        + "' is null in a record; counting needs a key");
            }
            return TextValues.format(keyType, value);
        }

        public CountByKey function() {
            return new CountByKey(this);
        }
    }

    @Override
    public void open(KeyedContext context) {
        count = context.getState(StateDescriptor.value("count", Serializers.LONG));
    }

    @Override
    public void processElement(Row value, Context<String> context, Collector<Row> out) {
        Long previous = count.value();
        long next = previous == null ? 1 : previous + 1;
        count.update(next);
        out.collect(fields.counted(value, next));
    }
}
