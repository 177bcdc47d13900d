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
import java.util.List;

/**
 * The {@code count-by-key} step: emits each row with the running count of its key in the count
 * field. Because the count is checkpointed state, lost or doubled state after a crash shows up as a
 * wrong count.
 *
 * <p>State is keyed by the text of the key field ({@link TextValues}), so jobs that counted events by
 * their {@code key} restore their counts.
 */
public final class CountByKey extends KeyedProcessFunction<String, Row, Row> {

    static final Option<String> KEY = Option.stringOption("key").defaultValue("key")
            .description("The field to count by: any scalar field; a record whose key is null fails the job.");
    static final Option<String> COUNT = Option.stringOption("count").defaultValue("count")
            .description("The field that receives the running count: a long field of the input.");

    static final List<Option<?>> OPTIONS = List.of(KEY, COUNT);

    private final int countPosition;
    private ValueState<Long> count;

    private CountByKey(int countPosition) {
        this.countPosition = countPosition;
    }

    /** The step's key and count fields in {@code schema}, checked before the job runs. */
    record Fields(int key, DataType keyType, int count) {

        static Fields of(Schema schema, OptionValues options, String owner) {
            String keyName = options.get(KEY);
            String countName = options.get(COUNT);
            Field key = schema.field(keyName).orElseThrow(() -> new OptionException(owner + ": key field '" + keyName
                    + "' is not a field of the input; fields: " + String.join(", ", schema.names())));
            if (key.type().isNested()) {
                throw new OptionException(owner + ": key field '" + keyName + "' is a " + key.type()
                        + "; counting by key needs a scalar field");
            }
            Field count = schema.field(countName).orElseThrow(() -> new OptionException(owner + ": count field '"
                    + countName + "' is not a field of the input; fields: " + String.join(", ", schema.names())));
            if (count.type().kind() != DataType.Kind.LONG) {
                throw new OptionException(owner + ": count field '" + countName + "' is a " + count.type()
                        + "; the running count needs a long field");
            }
            return new Fields(schema.position(keyName), key.type(), schema.position(countName));
        }

        /** The key of {@code row}: its key field's text. */
        String keyOf(Row row) {
            Object value = row.get(key);
            if (value == null) {
                throw new IllegalStateException("count-by-key: key field '" + row.schema().field(key).name()
                        + "' is null in a record; counting needs a key");
            }
            return TextValues.format(keyType, value);
        }

        CountByKey function() {
            return new CountByKey(count);
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
        out.collect(value.with(countPosition, next));
    }
}
