package dev.onceflow.runtime.cli;

import dev.onceflow.runtime.api.Collector;
import dev.onceflow.runtime.api.KeyedProcessFunction;
import dev.onceflow.runtime.state.MapState;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowKind;
import dev.onceflow.spi.row.RowSerializer;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.row.TextValues;
import dev.onceflow.spi.serialization.Serializers;
import java.math.BigDecimal;
import java.time.Instant;
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
 *
 * <p>With {@code window: <duration>} the aggregates are per key and tumbling window of event time
 * instead (the source must declare its {@code event-time}): one row per key and window, with the
 * fields {@code window_start}, {@code window_end} (both {@code timestamptz not null}, the end
 * exclusive), the key's fields and the aggregates, once the watermark passed the window's end or
 * the input ended. Open windows and their timers are checkpointed keyed state, so each window's
 * row comes out once across crashes. A row of a window whose result was already emitted (behind
 * the watermark, or behind a window of its key emitted before a restore) is late: left out and
 * counted, see {@link dev.onceflow.runtime.api.KeyedProcessFunction.Context#countLateRecord}.
 *
 * <p>Over a changelog (input that can carry updates and deletes, CHG-6) the running aggregate
 * retracts: an {@code UPDATE_BEFORE} or {@code DELETE} row is taken out of its key's
 * {@code count()} and {@code sum}s, and its output is an upsert stream keyed by the group key
 * (the key's fields and the aggregates, the key being the primary key): an {@code INSERT} for a
 * key's first row, an {@code UPDATE_AFTER} for each change after, a {@code DELETE} when the key's
 * last row is retracted. A retraction of a key that has no rows (a changelog read from its
 * middle) changes nothing. {@code min} and {@code max} cannot retract without keeping every value
 * and are refused over a changelog. A sum whose rows are all retracted but some remain with null
 * values is 0, not null.
 */
public final class AggregateStep extends KeyedProcessFunction<String, Row, Row> {

    /** How an option names the fields of the key. */
    static final String KEY = "key";

    /** The row count a retracting aggregate keeps per key in its state. */
    private static final String ROWS = "$rows";

    /** The option that makes the aggregate one per tumbling window of event time. */
    static final String WINDOW = "window";

    /** Fields of a windowed aggregate's rows before the key's. */
    static final String WINDOW_START = "window_start";
    static final String WINDOW_END = "window_end";

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
        private final Schema keySchema;
        private final long window;
        private final boolean changelog;
        private final String owner;

        private Plan(int[] key, DataType[] keyTypes, Aggregate[] aggregates, Schema output, Schema stateSchema,
                Schema keySchema, long window, boolean changelog, String owner) {
            this.key = key;
            this.keyTypes = keyTypes;
            this.aggregates = aggregates;
            this.output = output;
            this.stateSchema = stateSchema;
            this.keySchema = keySchema;
            this.window = window;
            this.changelog = changelog;
            this.owner = owner;
        }

        /**
         * The plan of the options {@code key: a, b}, {@code <name>: <function>(<field>)} and
         * optionally {@code window: <duration>} over {@code input}.
         *
         * @param eventTime whether the input's rows carry event time (a window needs it)
         * @param changelog whether the input can carry kinds other than insert: the aggregate then
         *     retracts and emits an upsert stream by the group key
         * @throws IllegalArgumentException with one line naming the step and the option
         */
        static Plan of(Schema input, Map<String, String> options, boolean eventTime, boolean changelog, String owner) {
            Map<String, String> aggregatesByName = new LinkedHashMap<>(options);
            String windowText = aggregatesByName.remove(WINDOW);
            long window = windowText == null ? 0 : window(windowText, eventTime, owner + " option '" + WINDOW + "'");
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
            if (changelog && window != 0) {
                throw new IllegalArgumentException(owner + " option '" + WINDOW + "': a window over a changelog would "
                        + "have to retract rows of windows already emitted; aggregate without a window");
            }
            List<Aggregate> aggregates = new ArrayList<>();
            for (Map.Entry<String, String> entry : aggregatesByName.entrySet()) {
                Aggregate aggregate = aggregate(input, entry.getKey(), entry.getValue() == null ? "" : entry.getValue(),
                        owner + " option '" + entry.getKey() + "'");
                if (changelog && (aggregate.function() == Function.MIN || aggregate.function() == Function.MAX)) {
                    throw new IllegalArgumentException(owner + " option '" + entry.getKey() + "': "
                            + aggregate.function().name().toLowerCase(Locale.ROOT) + " cannot take back a deleted or "
                            + "updated row of a changelog; use count() and sum, or aggregate an append-only stream");
                }
                aggregates.add(aggregate);
            }
            List<Field> state = new ArrayList<>();
            for (Aggregate aggregate : aggregates) {
                state.add(Field.of(aggregate.name(), aggregate.type().withNullable(true)));
            }
            if (changelog) {
                // how many rows the key has now: at 0 the key's row is deleted downstream
                state.add(Field.of(ROWS, DataType.LONG.notNull()));
            }
            List<Field> keyFields = new ArrayList<>();
            for (int i = 0; i < key.length; i++) {
                keyFields.add(Field.of(keyNames.get(i), keyTypes[i].notNull())); // a null key fails the job
            }
            Schema keySchema = Schema.of(keyFields, List.of());
            Schema output;
            if (changelog) {
                List<Field> out = new ArrayList<>(keyFields);
                aggregates.forEach(aggregate -> out.add(Field.of(aggregate.name(), aggregate.type())));
                output = Schema.of(out, keySchema.names());
            } else if (window == 0) {
                List<Field> out = new ArrayList<>(input.fields());
                aggregates.forEach(aggregate -> out.add(Field.of(aggregate.name(), aggregate.type())));
                output = Schema.of(out, input.primaryKey());
            } else {
                List<Field> out = new ArrayList<>(List.of(Field.of(WINDOW_START, DataType.TIMESTAMP_TZ.notNull()),
                        Field.of(WINDOW_END, DataType.TIMESTAMP_TZ.notNull())));
                for (Field field : keyFields) {
                    if (field.name().equals(WINDOW_START) || field.name().equals(WINDOW_END)) {
                        throw new IllegalArgumentException(owner + " option 'key': '" + field.name() + "' is a field "
                                + "of the window's rows already; rename it before this step");
                    }
                    out.add(field);
                }
                for (Aggregate aggregate : aggregates) {
                    if (aggregate.name().equals(WINDOW_START) || aggregate.name().equals(WINDOW_END)) {
                        throw new IllegalArgumentException(owner + " option '" + aggregate.name() + "': '"
                                + aggregate.name() + "' is a field of the window's rows already; give the aggregate "
                                + "another name");
                    }
                    out.add(Field.of(aggregate.name(), aggregate.type()));
                }
                List<String> primaryKey = new ArrayList<>(List.of(WINDOW_START));
                primaryKey.addAll(keySchema.names());
                output = Schema.of(out, primaryKey);
            }
            return new Plan(key, keyTypes, aggregates.toArray(Aggregate[]::new), output, Schema.of(state, List.of()),
                    keySchema, window, changelog, owner);
        }

        /** The length of a window in milliseconds. */
        private static long window(String text, boolean eventTime, String owner) {
            if (!eventTime) {
                throw new IllegalArgumentException(owner + ": a window is of event time, and the source declares none;"
                        + " add event-time: {field: <a timestamp field>, max-out-of-orderness: <duration>} to the source");
            }
            long millis;
            try {
                millis = Option.parseDuration(text).toMillis();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(owner + ": " + e.getMessage());
            }
            if (millis <= 0) {
                throw new IllegalArgumentException(owner + ": '" + text + "' is no length; a window lasts 1ms or more");
            }
            return millis;
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

        /** Whether the step's output is an upsert stream by the group key (its input is a changelog). */
        boolean emitsChanges() {
            return changelog;
        }

        /**
         * The step's function: a running aggregate, one per window if the step has a window, or a
         * retracting one over a changelog. The append-only running aggregate stays apart so its
         * per-row path costs what it did before changelogs.
         */
        KeyedProcessFunction<String, Row, Row> function() {
            return changelog ? new Retracting(this) : window == 0 ? new AggregateStep(this) : new Windowed(this);
        }

        /**
         * The aggregates and row count after taking {@code row} out of those before it, for the key
         * {@code key}: a count one less, each sum less the row's value. {@code before} is not null.
         */
        Object[] retract(Row before, Row row, String key) {
            Object[] next = new Object[aggregates.length + 1];
            for (int i = 0; i < aggregates.length; i++) {
                Aggregate aggregate = aggregates[i];
                Object previous = before.get(i);
                Object value = aggregate.input() < 0 ? null : row.get(aggregate.input());
                next[i] = aggregate.function() == Function.COUNT ? (Long) previous - 1
                        : value == null ? previous : subtract(aggregate, previous, value, key);
            }
            next[aggregates.length] = (Long) before.get(aggregates.length) - 1;
            return next;
        }

        private Object subtract(Aggregate aggregate, Object before, Object value, String key) {
            try {
                return switch (aggregate.type().kind()) {
                    case LONG -> Math.subtractExact(before == null ? 0L : (Long) before, ((Number) value).longValue());
                    case DOUBLE -> (before == null ? 0d : (Double) before) - ((Number) value).doubleValue();
                    default -> checkedDecimal((before == null ? BigDecimal.ZERO.setScale(aggregate.type().scale())
                            : (BigDecimal) before).subtract((BigDecimal) value));
                };
            } catch (ArithmeticException overflow) {
                throw new IllegalStateException(owner + ": " + aggregate.name() + " of key '"
                        + TextValues.abbreviate(key) + "' overflows " + aggregate.type());
            }
        }

        /** The aggregates after {@code row}, from those before it ({@code null}: none yet), for the key {@code key}. */
        Object[] add(Row before, Row row, String key) {
            Object[] next = new Object[aggregates.length];
            for (int i = 0; i < next.length; i++) {
                Aggregate aggregate = aggregates[i];
                Object previous = before == null ? null : before.get(i);
                next[i] = aggregate.function() == Function.COUNT ? (previous == null ? 1L : (Long) previous + 1)
                        : combine(aggregate, previous, row.get(aggregate.input()), key);
            }
            return next;
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private Object combine(Aggregate aggregate, Object before, Object value, String key) {
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
                    throw new IllegalStateException(owner + ": " + aggregate.name() + " of key '"
                            + TextValues.abbreviate(key) + "' overflows " + aggregate.type());
                }
            }
            if (before == null) {
                return value;
            }
            int order = ((Comparable) value).compareTo(before);
            return aggregate.function() == Function.MIN ? (order < 0 ? value : before) : (order > 0 ? value : before);
        }
    }

    @Override
    public void open(KeyedContext context) {
        state = context.getState(StateDescriptor.value("aggregates", RowSerializer.of(plan.stateSchema)));
    }

    @Override
    public void processElement(Row row, Context<String> context, Collector<Row> out) {
        Object[] next = plan.add(state.value(), row, context.currentKey());
        state.update(Row.of(plan.stateSchema, next));
        Object[] values = Arrays.copyOf(row.values(), row.arity() + next.length);
        System.arraycopy(next, 0, values, row.arity(), next.length);
        out.collect(Row.of(plan.output, values));
    }

    private static BigDecimal checkedDecimal(BigDecimal sum) {
        if (sum.precision() > 38) {
            throw new ArithmeticException("more than 38 digits");
        }
        return sum;
    }

    /**
     * The running aggregate over a changelog (CHG-6): adds {@code INSERT} and {@code UPDATE_AFTER}
     * rows, retracts {@code UPDATE_BEFORE} and {@code DELETE} rows, and emits the key's row of
     * aggregates as an upsert: {@code INSERT} for a key's first row, {@code UPDATE_AFTER} after, and
     * {@code DELETE} once the key has no rows.
     */
    private static final class Retracting extends KeyedProcessFunction<String, Row, Row> {

        private final Plan plan;
        private ValueState<Row> state;

        Retracting(Plan plan) {
            this.plan = plan;
        }

        @Override
        public void open(KeyedContext context) {
            state = context.getState(StateDescriptor.value("aggregates", RowSerializer.of(plan.stateSchema)));
        }

        @Override
        public void processElement(Row row, Context<String> context, Collector<Row> out) {
            Row before = state.value();
            int rows = plan.aggregates.length;
            Object[] next;
            if (row.kind().isRetraction()) {
                if (before == null) {
                    return; // nothing to take back: the changelog was read from after this key's insert
                }
                next = plan.retract(before, row, context.currentKey());
            } else {
                Object[] added = plan.add(before, row, context.currentKey());
                next = Arrays.copyOf(added, rows + 1);
                next[rows] = before == null ? 1L : (Long) before.get(rows) + 1;
            }
            Object[] keyed = new Object[plan.key.length + rows];
            for (int i = 0; i < plan.key.length; i++) {
                keyed[i] = row.get(plan.key[i]);
            }
            if ((Long) next[rows] == 0) {
                state.clear();
                System.arraycopy(before.values(), 0, keyed, plan.key.length, rows);
                out.collect(Row.of(plan.output, keyed).withKind(RowKind.DELETE));
                return;
            }
            state.update(Row.of(plan.stateSchema, next));
            System.arraycopy(next, 0, keyed, plan.key.length, rows);
            out.collect(Row.of(plan.output, keyed).withKind(before == null ? RowKind.INSERT : RowKind.UPDATE_AFTER));
        }
    }

    /**
     * The aggregates of each key per tumbling window of event time. A window {@code [start, end)}
     * is state until its event-time timer at {@code end - 1} fires; then its row goes out and the
     * window is forgotten. {@code closed} remembers the end of the key's last emitted window: after
     * a restore the watermark starts again from the beginning of time, and without it a late row
     * would open a window that was emitted before the crash a second time.
     */
    private static final class Windowed extends KeyedProcessFunction<String, Row, Row> {

        private final Plan plan;
        private MapState<Long, Row> windows;
        private ValueState<Row> keyValues;
        private ValueState<Long> closed;

        Windowed(Plan plan) {
            this.plan = plan;
        }

        @Override
        public void open(KeyedContext context) {
            windows = context.getState(StateDescriptor.map("windows", Serializers.LONG,
                    RowSerializer.of(plan.stateSchema)));
            keyValues = context.getState(StateDescriptor.value("key", RowSerializer.of(plan.keySchema)));
            closed = context.getState(StateDescriptor.value("closed", Serializers.LONG));
        }

        @Override
        public void processElement(Row row, Context<String> context, Collector<Row> out) {
            long time = context.timestamp();
            if (time == Long.MIN_VALUE) {
                throw new IllegalStateException(plan.owner + ": " + RowExpressions.describe(row) + " has no event time");
            }
            long start = Math.floorDiv(time, plan.window) * plan.window;
            long last = start + (plan.window - 1); // the window's last millisecond, when its timer fires
            Long closedAt = closed.value();
            if (last <= context.timerService().currentWatermark() || closedAt != null && start < closedAt) {
                context.countLateRecord();
                return;
            }
            if (keyValues.value() == null) {
                Object[] key = new Object[plan.key.length];
                for (int i = 0; i < key.length; i++) {
                    key[i] = row.get(plan.key[i]);
                }
                keyValues.update(Row.of(plan.keySchema, key));
            }
            windows.put(start, Row.of(plan.stateSchema, plan.add(windows.get(start), row, context.currentKey())));
            context.timerService().registerEventTimeTimer(last);
        }

        @Override
        public void onTimer(long time, OnTimerContext<String> context, Collector<Row> out) {
            long start = time - (plan.window - 1);
            Row aggregates = windows.get(start);
            if (aggregates == null) {
                return;
            }
            windows.remove(start);
            closed.update(start + plan.window);
            Row key = keyValues.value();
            Object[] values = new Object[2 + key.arity() + aggregates.arity()];
            values[0] = Instant.ofEpochMilli(start);
            values[1] = Instant.ofEpochMilli(start + plan.window);
            System.arraycopy(key.values(), 0, values, 2, key.arity());
            System.arraycopy(aggregates.values(), 0, values, 2 + key.arity(), aggregates.arity());
            out.collect(Row.of(plan.output, values));
        }
    }
}
