package dev.onceflow.runtime.cli;

import dev.onceflow.runtime.api.Collector;
import dev.onceflow.runtime.api.KeyedProcessFunction;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowSerializer;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.row.TextValues;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code aggregate} step: a running aggregate per key. Each row goes on with its key's
 * aggregates so far, one new field each, after the input's fields: {@code count()} (rows),
 * {@code sum(field)}, {@code min(field)}, {@code max(field)}. The key is one or more scalar
 * fields. Nulls are skipped as in SQL; a sum, min or max of no value yet is null. The aggregates
 * are checkpointed keyed state, so a replay after a crash continues from the checkpoint's values:
 * lost or doubled state shows up as a wrong total.
 *
 * <p>Types: {@code count()} is {@code long not null}; {@code sum} of int or long is long, of float
 * or double is double, of {@code decimal(p, s)} is {@code decimal(38, s)}; {@code min} and
 * {@code max} keep the field's type. A sum that overflows its type fails the job naming the key,
 * never wraps.
 */
public final class AggregateStep extends KeyedProcessFunction<String, Row, Row> {

    /** How an option names the fields of the key. */
    static final String KEY = "key";

    private static final Pattern CALL = Pattern.compile("\\s*([a-zA-Z]+)\\s*\\(\\s*([^()]*?)\\s*\\)\\s*");

    private enum Function { COUNT, SUM, MIN, MAX }

    /** One aggregate: its function, the input position it reads (-1 for count) and its output type. */
    private record Aggregate(String name, Function function, int input, DataType type) {
    }

    private final Plan plan;
    private ValueState<Row> state;

    private AggregateStep(Plan plan) {
        this.plan = plan;
    }

    /**
     * The step's key and aggregates over an input schema, checked before the job runs, and the schema
     * of its output.
     */
    static final class Plan {
        private final int[] key;
        private final DataType[] keyTypes;
        private final Aggregate[] aggregates;
        private final Schema output;
        private final Schema stateSchema;
        private final String owner;

        private Plan(int[] key, DataType[] keyTypes, Aggregate[] aggregates, Schema output, Schema stateSchema,
                String owner) {
            this.key = key;
            this.keyTypes = keyTypes;
            this.aggregates = aggregates;
            this.output = output;
            this.stateSchema = stateSchema;
            this.owner = owner;
        }

        /**
         * The plan of the options {@code key: a, b} and {@code <name>: <function>(<field>)} over
         * {@code input}.
         *
         * @throws IllegalArgumentException with one line naming the step and the option
         */
        static Plan of(Schema input, Map<String, String> options, String owner) {
            Map<String, String> aggregatesByName = new LinkedHashMap<>(options);
            String keyList = aggregatesByName.remove(KEY);
            if (keyList == null || keyList.isBlank()) {
                throw new IllegalArgumentException(owner + " needs option 'key': the field or fields (a, b) to "
                        + "aggregate by");
            }
            List<String> keyNames = Arrays.stream(keyList.split(",")).map(String::strip).toList();
            int[] key = new int[keyNames.size()];
            DataType[] keyTypes = new DataType[key.length];
            for (int i = 0; i < key.length; i++) {
                key[i] = field(input, keyNames.get(i), owner + " option 'key'");
                keyTypes[i] = input.field(key[i]).type();
                if (keyTypes[i].isNested()) {
                    throw new IllegalArgumentException(owner + " option 'key': field '" + keyNames.get(i) + "' is a "
                            + keyTypes[i] + "; a key is made of scalar fields");
                }
            }
            if (aggregatesByName.isEmpty()) {
                throw new IllegalArgumentException(owner + " lists no aggregates; give each as name: count(), "
                        + "sum(field), min(field) or max(field)");
            }
            List<Aggregate> aggregates = new ArrayList<>();
            for (Map.Entry<String, String> entry : aggregatesByName.entrySet()) {
                aggregates.add(aggregate(input, entry.getKey(), entry.getValue() == null ? "" : entry.getValue(),
                        owner + " option '" + entry.getKey() + "'"));
            }
            List<Field> out = new ArrayList<>(input.fields());
            List<Field> state = new ArrayList<>();
            for (Aggregate aggregate : aggregates) {
                out.add(Field.of(aggregate.name(), aggregate.type()));
                state.add(Field.of(aggregate.name(), aggregate.type().withNullable(true)));
            }
            return new Plan(key, keyTypes, aggregates.toArray(Aggregate[]::new),
                    Schema.of(out, input.primaryKey()), Schema.of(state, List.of()), owner);
        }

        private static Aggregate aggregate(Schema input, String name, String text, String owner) {
            if (input.indexOf(name) >= 0) {
                throw new IllegalArgumentException(owner + ": '" + name + "' is a field of the input already; give "
                        + "the aggregate another name");
            }
            Matcher call = CALL.matcher(text);
            Function function = null;
            if (call.matches()) {
                try {
                    function = Function.valueOf(call.group(1).toUpperCase(Locale.ROOT));
                } catch (IllegalArgumentException unknown) {
                    function = null;
                }
            }
            if (function == null) {
                throw new IllegalArgumentException(owner + ": '" + text + "' is not an aggregate; use count(), "
                        + "sum(field), min(field) or max(field)");
            }
            String argument = call.group(2);
            if (function == Function.COUNT) {
                if (!argument.isEmpty()) {
                    throw new IllegalArgumentException(owner + ": count() counts rows and takes no field");
                }
                return new Aggregate(name, function, -1, DataType.LONG.notNull());
            }
            int position = field(input, argument, owner);
            DataType type = input.field(position).type();
            DataType result = switch (function) {
                case SUM -> switch (type.kind()) {
                    case INT, LONG -> DataType.LONG;
                    case FLOAT, DOUBLE -> DataType.DOUBLE;
                    case DECIMAL -> DataType.decimal(38, type.scale());
                    default -> throw new IllegalArgumentException(owner + ": sum of field '" + argument + "', a "
                            + type + "; sum takes int, long, float, double or decimal fields");
                };
                case MIN, MAX -> switch (type.kind()) {
                    case BYTES, ROW, ARRAY, MAP -> throw new IllegalArgumentException(owner + ": "
                            + function.name().toLowerCase(Locale.ROOT) + " of field '" + argument + "', a " + type
                            + "; min and max take numbers, strings, booleans, dates and times");
                    default -> type;
                };
                case COUNT -> throw new AssertionError();
            };
            return new Aggregate(name, function, position, result.withNullable(type.nullable()));
        }

        private static int field(Schema input, String name, String owner) {
            int position = input.indexOf(name);
            if (position < 0) {
                throw new IllegalArgumentException(owner + ": '" + name + "' is not a field of the input; fields: "
                        + String.join(", ", input.names()));
            }
            return position;
        }

        Schema output() {
            return output;
        }

        /**
         * The key of {@code row}: its one key field's text, as {@code count-by-key} keys its state, or
         * the texts of several, each with {@code \} and {@code ,} escaped, joined by {@code ,}.
         */
        String keyOf(Row row) {
            if (key.length == 1) {
                return text(row, 0);
            }
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < key.length; i++) {
                if (i > 0) {
                    text.append(',');
                }
                text.append(text(row, i).replace("\\", "\\\\").replace(",", "\\,"));
            }
            return text.toString();
        }

        private String text(Row row, int i) {
            Object value = row.get(key[i]);
            if (value == null) {
                throw new IllegalStateException(owner + ": key field '" + row.schema().field(key[i]).name()
                        + "' is null in " + RowExpressions.describe(row) + "; aggregating needs a key");
            }
            return TextValues.format(keyTypes[i], value);
        }

        AggregateStep function() {
            return new AggregateStep(this);
        }
    }

    @Override
    public void open(KeyedContext context) {
        state = context.getState(StateDescriptor.value("aggregates", RowSerializer.of(plan.stateSchema)));
    }

    @Override
    public void processElement(Row row, Context<String> context, Collector<Row> out) {
        Row previous = state.value();
        Object[] next = new Object[plan.aggregates.length];
        for (int i = 0; i < next.length; i++) {
            Aggregate aggregate = plan.aggregates[i];
            Object before = previous == null ? null : previous.get(i);
            next[i] = aggregate.function() == Function.COUNT ? (before == null ? 1L : (Long) before + 1)
                    : combine(aggregate, before, row.get(aggregate.input()), context);
        }
        state.update(Row.of(plan.stateSchema, next));
        Object[] values = Arrays.copyOf(row.values(), row.arity() + next.length);
        System.arraycopy(next, 0, values, row.arity(), next.length);
        out.collect(Row.of(plan.output, values));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private Object combine(Aggregate aggregate, Object before, Object value, Context<String> context) {
        if (value == null) {
            return before;
        }
        if (aggregate.function() == Function.SUM) {
            Object addend = switch (aggregate.type().kind()) {
                case LONG -> ((Number) value).longValue();
                case DOUBLE -> ((Number) value).doubleValue();
                default -> value;
            };
            if (before == null) {
                return addend;
            }
            try {
                return switch (aggregate.type().kind()) {
                    case LONG -> Math.addExact((Long) before, (Long) addend);
                    case DOUBLE -> (Double) before + (Double) addend;
                    default -> checkedDecimal(((BigDecimal) before).add((BigDecimal) addend));
                };
            } catch (ArithmeticException overflow) {
                throw new IllegalStateException(plan.owner + ": " + aggregate.name() + " of key '"
                        + TextValues.abbreviate(context.currentKey()) + "' overflows " + aggregate.type());
            }
        }
        if (before == null) {
            return value;
        }
        int order = ((Comparable) value).compareTo(before);
        return aggregate.function() == Function.MIN ? (order < 0 ? value : before) : (order > 0 ? value : before);
    }

    private static BigDecimal checkedDecimal(BigDecimal sum) {
        if (sum.precision() > 38) {
            throw new ArithmeticException("more than 38 digits");
        }
        return sum;
    }
}
