package dev.onceflow.spi.row;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The type of a field of a {@link Row}: a {@link Kind}, whether {@code null} is allowed, and the
 * kind's parameters (precision and scale of a decimal, the element of an array, the key and value
 * of a map, the fields of a nested row). Immutable; equal types are interchangeable.
 *
 * <p>Each kind has one Java class of values ({@link Kind#valueClass()}), the only class a row
 * accepts for it. Rules ROW-1 and ROW-2 in {@code docs/spec.md}.
 *
 * <p>{@link #toString()} writes the syntax {@link #parse} reads, such as {@code decimal(12, 2) not
 * null} or {@code array<row<sku string, qty int>>}; job files declare schemas in it.
 */
public final class DataType {

    /** What a type is, and the Java class of its values. */
    public enum Kind {
        BOOLEAN("boolean", Boolean.class),
        INT("int", Integer.class),
        LONG("long", Long.class),
        FLOAT("float", Float.class),
        DOUBLE("double", Double.class),
        /** Exact decimal of a precision and scale; values are {@link BigDecimal}s of exactly that scale. */
        DECIMAL("decimal", BigDecimal.class),
        STRING("string", String.class),
        /** Bytes; values are {@code byte[]}s nobody modifies once they are in a row. */
        BYTES("bytes", byte[].class),
        DATE("date", LocalDate.class),
        /** Time of day without a zone. */
        TIME("time", LocalTime.class),
        /** Date and time without a zone ("wall clock"). */
        TIMESTAMP("timestamp", LocalDateTime.class),
        /** A point on the time line: a timestamp with time zone, kept as UTC. */
        TIMESTAMP_TZ("timestamptz", Instant.class),
        /** A nested row; values are {@link Row}s of the type's {@link #schema()}. */
        ROW("row", Row.class),
        /** Values are unmodifiable {@link List}s of the element type. */
        ARRAY("array", List.class),
        /** Values are unmodifiable {@link Map}s with non-null keys, in the order they were given. */
        MAP("map", Map.class);

        private final String typeName;
        private final Class<?> valueClass;

        Kind(String typeName, Class<?> valueClass) {
            this.typeName = typeName;
            this.valueClass = valueClass;
        }

        /** The name {@link DataType#parse} reads, such as {@code "timestamptz"}. */
        public String typeName() {
            return typeName;
        }

        /** The class every non-null value of this kind is an instance of. */
        public Class<?> valueClass() {
            return valueClass;
        }
    }

    /** The largest precision of a decimal: that of PostgreSQL's, Avro's and Parquet's common ground. */
    public static final int MAX_DECIMAL_PRECISION = 38;

    public static final DataType BOOLEAN = new DataType(Kind.BOOLEAN);
    public static final DataType INT = new DataType(Kind.INT);
    public static final DataType LONG = new DataType(Kind.LONG);
    public static final DataType FLOAT = new DataType(Kind.FLOAT);
    public static final DataType DOUBLE = new DataType(Kind.DOUBLE);
    public static final DataType STRING = new DataType(Kind.STRING);
    public static final DataType BYTES = new DataType(Kind.BYTES);
    public static final DataType DATE = new DataType(Kind.DATE);
    public static final DataType TIME = new DataType(Kind.TIME);
    public static final DataType TIMESTAMP = new DataType(Kind.TIMESTAMP);
    public static final DataType TIMESTAMP_TZ = new DataType(Kind.TIMESTAMP_TZ);

    private final Kind kind;
    private final boolean nullable;
    private final int precision;
    private final int scale;
    private final DataType element;
    private final DataType value;
    private final Schema schema;
    /**
     * The class every value of this type has, when a value of that class needs no other check:
     * the scalar kinds but decimal (a scale to check; BigDecimal can be subclassed). Null otherwise.
     */
    private final Class<?> exactClass;

    private DataType(Kind kind, boolean nullable, int precision, int scale, DataType element, DataType value,
            Schema schema) {
        this.exactClass = switch (kind) {
            case DECIMAL, ROW, ARRAY, MAP -> null;
            default -> kind.valueClass;
        };
        this.kind = kind;
        this.nullable = nullable;
        this.precision = precision;
        this.scale = scale;
        this.element = element;
        this.value = value;
        this.schema = schema;
    }

    private DataType(Kind kind) {
        this(kind, true, 0, 0, null, null, null);
    }

    /**
     * An exact decimal: {@code precision} digits in all, {@code scale} of them after the point.
     *
     * @throws IllegalArgumentException unless {@code 1 <= precision <= 38} and {@code 0 <= scale <= precision}
     */
    public static DataType decimal(int precision, int scale) {
        if (precision < 1 || precision > MAX_DECIMAL_PRECISION) {
            throw new IllegalArgumentException("decimal precision " + precision + " is not between 1 and "
                    + MAX_DECIMAL_PRECISION);
        }
        if (scale < 0 || scale > precision) {
            throw new IllegalArgumentException("decimal scale " + scale + " is not between 0 and the precision "
                    + precision);
        }
        return new DataType(Kind.DECIMAL, true, precision, scale, null, null, null);
    }

    /** An array of {@code element}s. */
    public static DataType array(DataType element) {
        return new DataType(Kind.ARRAY, true, 0, 0, Objects.requireNonNull(element, "element"), null, null);
    }

    /**
     * A map from {@code key} to {@code value}. Keys are never null, so the key type is made
     * {@link #notNull()}.
     *
     * @throws IllegalArgumentException if the key type is bytes, a row, an array or a map: keys
     *     are compared by value, which those kinds' Java classes do not do
     */
    public static DataType map(DataType key, DataType value) {
        Objects.requireNonNull(key, "key");
        if (key.isNested() || key.kind == Kind.BYTES) {
            throw new IllegalArgumentException("a map key cannot be of type " + key.kind.typeName
                    + "; use a scalar type such as string or long");
        }
        return new DataType(Kind.MAP, true, 0, 0, Objects.requireNonNull(key, "key").notNull(),
                Objects.requireNonNull(value, "value"), null);
    }

    /**
     * A nested row of {@code schema}'s fields.
     *
     * @throws IllegalArgumentException if {@code schema} declares a primary key: only a top-level
     *     schema has one
     */
    public static DataType row(Schema schema) {
        Objects.requireNonNull(schema, "schema");
        if (!schema.primaryKey().isEmpty()) {
            throw new IllegalArgumentException("a nested row cannot have a primary key: " + schema);
        }
        return new DataType(Kind.ROW, true, 0, 0, null, null, schema);
    }

    /** A nested row of these fields. */
    public static DataType row(Field... fields) {
        return row(Schema.of(fields));
    }

    /**
     * Reads a type written as {@link #toString()} writes it. Names are case-insensitive; besides the
     * kind names it accepts {@code integer}, {@code bigint}, {@code text}, {@code bool} and
     * {@code timestamp with time zone}. Field names of nested rows are identifiers or quoted in
     * backticks ({@code `order id`}, a backtick doubled inside).
     *
     * @throws IllegalArgumentException with a one-line message naming the position and what was
     *     expected there
     */
    public static DataType parse(String text) {
        return new TypeParser(text).parseWhole();
    }

    public Kind kind() {
        return kind;
    }

    /** Whether a row may hold {@code null} for a field of this type. New types are nullable. */
    public boolean nullable() {
        return nullable;
    }

    /** This type, with {@code null} allowed or not. */
    public DataType withNullable(boolean allowNull) {
        return allowNull == nullable ? this : new DataType(kind, allowNull, precision, scale, element, value, schema);
    }

    /** This type without {@code null}. */
    public DataType notNull() {
        return withNullable(false);
    }

    /** A decimal's number of digits; 0 for other kinds. */
    public int precision() {
        return precision;
    }

    /** A decimal's digits after the point; 0 for other kinds. */
    public int scale() {
        return scale;
    }

    /** An array's element type. @throws IllegalStateException for other kinds */
    public DataType elementType() {
        require(Kind.ARRAY);
        return element;
    }

    /** A map's key type (never nullable). @throws IllegalStateException for other kinds */
    public DataType keyType() {
        require(Kind.MAP);
        return element;
    }

    /** A map's value type. @throws IllegalStateException for other kinds */
    public DataType valueType() {
        require(Kind.MAP);
        return value;
    }

    /** A nested row's fields. @throws IllegalStateException for other kinds */
    public Schema schema() {
        require(Kind.ROW);
        return schema;
    }

    /** Whether this is a row, an array or a map. */
    public boolean isNested() {
        return kind == Kind.ROW || kind == Kind.ARRAY || kind == Kind.MAP;
    }

    private void require(Kind expected) {
        if (kind != expected) {
            throw new IllegalStateException(this + " is not a " + expected.typeName());
        }
    }

    /**
     * Why {@code v} is not a value of this type, or {@code null} if it is. Checks nested values
     * too (ROW-2).
     */
    String problemWith(Object v) {
        // Every row checks every value it is made of: the common case stays small enough to inline.
        if (v != null && v.getClass() == exactClass) {
            return null;
        }
        return problemOf(v);
    }

    private String problemOf(Object v) {
        if (v == null) {
            return nullable ? null : "null in a field of type " + this;
        }
        if (!kind.valueClass.isInstance(v)) {
            return "a " + v.getClass().getName() + " where " + this + " needs a " + kind.valueClass.getName();
        }
        switch (kind) {
            case DECIMAL -> {
                BigDecimal d = (BigDecimal) v;
                if (d.scale() != scale) {
                    return "decimal " + d.toPlainString() + " has scale " + d.scale() + ", " + this + " needs " + scale;
                }
                if (d.precision() > precision) {
                    return "decimal " + d.toPlainString() + " has " + d.precision() + " digits, more than " + this
                            + " holds";
                }
            }
            case ROW -> {
                Row row = (Row) v;
                if (!row.schema().equals(schema)) {
                    return "a row of " + row.schema() + " where " + this + " needs one of " + schema;
                }
            }
            case ARRAY -> {
                int i = 0;
                for (Object e : (List<?>) v) {
                    String problem = element.problemWith(e);
                    if (problem != null) {
                        return "element " + i + ": " + problem;
                    }
                    i++;
                }
            }
            case MAP -> {
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    String problem = element.problemWith(e.getKey());
                    if (problem == null) {
                        problem = value.problemWith(e.getValue());
                    }
                    if (problem != null) {
                        return "map entry " + e.getKey() + ": " + problem;
                    }
                }
            }
            default -> {
                // the class check is all
            }
        }
        return null;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof DataType t && kind == t.kind && nullable == t.nullable && precision == t.precision
                && scale == t.scale && Objects.equals(element, t.element) && Objects.equals(value, t.value)
                && Objects.equals(schema, t.schema);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, nullable, precision, scale, element, value, schema);
    }

    /** The type in the syntax {@link #parse} reads. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(kind.typeName);
        switch (kind) {
            case DECIMAL -> s.append('(').append(precision).append(", ").append(scale).append(')');
            case ARRAY -> s.append('<').append(element).append('>');
            // a key is never null, so its "not null" says nothing
            case MAP -> s.append('<').append(element.withNullable(true)).append(", ").append(value).append('>');
            case ROW -> s.append(schema.fieldList());
            default -> {
                // no parameters
            }
        }
        return nullable ? s.toString() : s.append(" not null").toString();
    }
}
