package dev.onceflow.spi.row;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One record of a {@link Schema}: a value per field, by position, each {@code null} or an instance
 * of its field type's {@link DataType.Kind#valueClass() value class}. Immutable and safe to share
 * between threads; arrays and maps inside are unmodifiable copies. The one exception is a
 * {@code bytes} value, a {@code byte[]} that nobody may modify once it is in a row (ROW-1).
 *
 * <p>Every way of making a row checks every value against its type, nested ones included (ROW-2),
 * so a connector that receives a row can rely on its schema.
 *
 * <p>Every row has a {@link RowKind}: {@link RowKind#INSERT} unless made otherwise with
 * {@link #withKind}. What a sink does with each kind is in the CHG rules of {@code docs/spec.md}.
 */
public final class Row {

    private final Schema schema;
    private final Object[] values;
    private final RowKind kind;

    private Row(Schema schema, Object[] values, RowKind kind) {
        this.schema = schema;
        this.values = values;
        this.kind = kind;
    }

    /**
     * A row of {@code schema} holding {@code values}, one per field, in field order.
     *
     * @throws IllegalArgumentException naming the field and the problem, if the number of values
     *     is not the number of fields or a value does not fit its field's type
     */
    public static Row of(Schema schema, Object... values) {
        Objects.requireNonNull(schema, "schema");
        if (values.length != schema.size()) {
            throw new IllegalArgumentException(values.length + " values for the " + schema.size() + " fields of "
                    + schema);
        }
        Object[] copy = new Object[values.length];
        for (int i = 0; i < values.length; i++) {
            copy[i] = checked(schema.field(i), values[i]);
        }
        return new Row(schema, copy, RowKind.INSERT);
    }

    /** A row of {@code schema} holding {@code values}, one per field, in field order. See {@link #of(Schema, Object...)}. */
    public static Row of(Schema schema, List<?> values) {
        return of(schema, values.toArray());
    }

    /**
     * A row of {@code schema} from values by field name; fields not in {@code byName} are null.
     *
     * @throws IllegalArgumentException if a name is not a field, or a value does not fit
     */
    public static Row ofNamed(Schema schema, Map<String, ?> byName) {
        Object[] values = new Object[schema.size()];
        byName.forEach((name, value) -> values[schema.position(name)] = value);
        return of(schema, values);
    }

    private static Object checked(Field field, Object value) {
        String problem = field.type().problemWith(value);
        if (problem != null) {
            throw new IllegalArgumentException("field '" + field.name() + "': " + problem);
        }
        return frozen(field.type(), value);
    }

    /** Arrays and maps become unmodifiable copies, so nobody can change a row through them. */
    private static Object frozen(DataType type, Object value) {
        if (value == null) {
            return null;
        }
        return switch (type.kind()) {
            case ARRAY -> {
                List<?> list = (List<?>) value;
                List<Object> copy = new ArrayList<>(list.size());
                for (Object e : list) {
                    copy.add(frozen(type.elementType(), e));
                }
                yield Collections.unmodifiableList(copy);
            }
            case MAP -> {
                Map<?, ?> map = (Map<?, ?>) value;
                Map<Object, Object> copy = new LinkedHashMap<>(Math.max(4, map.size() * 2));
                map.forEach((k, v) -> copy.put(k, frozen(type.valueType(), v)));
                yield Collections.unmodifiableMap(copy);
            }
            default -> value;
        };
    }

    public Schema schema() {
        return schema;
    }

    /** What this row says about the row of its key: {@link RowKind#INSERT} unless made with {@link #withKind}. */
    public RowKind kind() {
        return kind;
    }

    /**
     * This row's values as a row of {@code kind}. The values are shared, not copied or checked again:
     * they are immutable (ROW-1) and were checked when this row was made.
     *
     * @throws IllegalArgumentException if {@code kind} is not {@link RowKind#INSERT} and the schema
     *     has no primary key: a change to a row nobody can name cannot be applied (CHG-1)
     */
    public Row withKind(RowKind kind) {
        Objects.requireNonNull(kind, "kind");
        if (kind == this.kind) {
            return this;
        }
        if (kind != RowKind.INSERT && schema.primaryKey().isEmpty()) {
            throw new IllegalArgumentException("a " + kind + " row needs a primary key on its schema, and " + schema
                    + " has none");
        }
        return new Row(schema, values, kind);
    }

    /** The number of fields. */
    public int arity() {
        return values.length;
    }

    /** The value of the field at {@code position}, or {@code null}. */
    public Object get(int position) {
        return values[position];
    }

    /**
     * The value of the field named {@code name}, or {@code null}.
     *
     * @throws IllegalArgumentException if the schema has no such field
     */
    public Object get(String name) {
        return values[schema.position(name)];
    }

    /** Whether the field at {@code position} is {@code null}. */
    public boolean isNull(int position) {
        return values[position] == null;
    }

    /**
     * This row with the field at {@code position} set to {@code value}.
     *
     * @throws IllegalArgumentException if the value does not fit the field's type
     */
    public Row with(int position, Object value) {
        Object[] copy = values.clone();
        copy[position] = checked(schema.field(position), value);
        return new Row(schema, copy, kind);
    }

    /** The values in field order, as a new array the caller owns. */
    public Object[] values() {
        return values.clone();
    }

    /**
     * Rows are equal when their kinds, their schemas and their values are, with {@code byte[]}s compared by
     * content, also inside arrays and maps.
     */
    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Row r) || kind != r.kind || !schema.equals(r.schema)) {
            return false;
        }
        for (int i = 0; i < values.length; i++) {
            if (!valueEquals(values[i], r.values[i])) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = 31 * schema.hashCode() + kind.ordinal();
        for (Object v : values) {
            h = 31 * h + valueHash(v);
        }
        return h;
    }

    private static boolean valueEquals(Object a, Object b) {
        if (a instanceof byte[] x) {
            return b instanceof byte[] y && Arrays.equals(x, y);
        }
        if (a instanceof List<?> x) {
            if (!(b instanceof List<?> y) || x.size() != y.size()) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!valueEquals(x.get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof Map<?, ?> x) {
            if (!(b instanceof Map<?, ?> y) || x.size() != y.size()) {
                return false;
            }
            for (Map.Entry<?, ?> e : x.entrySet()) {
                if (!y.containsKey(e.getKey()) || !valueEquals(e.getValue(), y.get(e.getKey()))) {
                    return false;
                }
            }
            return true;
        }
        return Objects.equals(a, b);
    }

    private static int valueHash(Object v) {
        if (v instanceof byte[] b) {
            return Arrays.hashCode(b);
        }
        if (v instanceof List<?> list) {
            int h = 1;
            for (Object e : list) {
                h = 31 * h + valueHash(e);
            }
            return h;
        }
        if (v instanceof Map<?, ?> map) {
            int h = 0;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                h += Objects.hashCode(e.getKey()) ^ valueHash(e.getValue());
            }
            return h;
        }
        return Objects.hashCode(v);
    }

    /**
     * {@code {id=7, name=Ada, tags=[a, b]}}, for logs and test failures; a row that is not an insert
     * starts with its kind's short string, {@code -D{id=7, ...}}.
     */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(kind == RowKind.INSERT ? "" : kind.shortString()).append('{');
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                s.append(", ");
            }
            Object v = values[i];
            s.append(schema.field(i).name()).append('=').append(v instanceof byte[] b ? Arrays.toString(b) : v);
        }
        return s.append('}').toString();
    }
}
