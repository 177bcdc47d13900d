package dev.onceflow.connector.datagen;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.TextValues;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The options {@code fields.<name>.<setting>} of one field of a declared schema, declared for the
 * field's type (a string has a {@code length}, a date a {@code min} and {@code max} that are
 * dates), and the {@link FieldGenerator} they make.
 */
final class FieldOptions {

    /** How a field's values are made. */
    enum Kind {
        /** Drawn from the row's random bits. */
        RANDOM,
        /** {@code start}, {@code start + 1}, ... by sequence number. */
        SEQUENCE
    }

    static final String PREFIX = "fields.";
    /** Characters of a random string and bytes of random bytes when {@code length} is not set. */
    static final int DEFAULT_LENGTH = 16;
    /** Elements of a random array when {@code length} is not set. */
    static final int DEFAULT_ARRAY_LENGTH = 3;

    private static final LocalDateTime FIRST_TIMESTAMP = LocalDateTime.of(1970, 1, 1, 0, 0);
    private static final LocalDateTime LAST_TIMESTAMP = LocalDateTime.of(2099, 12, 31, 23, 59, 59, 999_999_000);
    private static final LocalTime LAST_TIME = LocalTime.of(23, 59, 59, 999_999_000);

    private final String name;
    /** The field's type; null for the docs' template, which declares every setting. */
    private final DataType type;
    private final Option<Kind> kind;
    private final Option<Object> start;
    private final Option<Object> end;
    private final Option<Object> min;
    private final Option<Object> max;
    private final Option<Integer> length;
    private final Option<Double> nullRate;
    private final Option<List<Object>> values;

    private FieldOptions(String name, DataType type) {
        this.name = name;
        this.type = type;
        String key = PREFIX + name + ".";
        Option<Kind> kindOption = Option.enumOption(key + "kind", Kind.class).defaultValue(Kind.RANDOM)
                .description("random: drawn from the row's random bits; sequence: start, start + 1, ... by the row's "
                        + "sequence number (days for a date, seconds for a time or timestamp, the number's digits "
                        + "for a string), so unique.");
        this.kind = type == null || sequenceable(type) ? kindOption
                : kindOption.check(k -> k == Kind.SEQUENCE ? "is not available for a " + type.withNullable(true)
                        + " field" : null, "random");
        DataType sequenceType = type == null ? null : type.kind() == DataType.Kind.STRING ? DataType.LONG : type;
        boolean sequence = type == null || sequenceable(type);
        this.start = !sequence ? null : value(key + "start", sequenceType).description("First value of a sequence; "
                + "default 0, 1970-01-01 for a date or timestamp, 00:00 for a time.");
        this.end = !sequence ? null : value(key + "end", sequenceType).description("Last value of a sequence; default "
                + "the type's largest. The source ends when a sequence runs out, unless rows ends it first; rows "
                + "beyond the sequence are refused.");
        DataType rangeType = type == null ? null : type.kind() == DataType.Kind.ARRAY ? type.elementType() : type;
        boolean ranged = type == null || randomDefaults(rangeType) != null;
        this.min = !ranged ? null : value(key + "min", rangeType).description("Smallest random value (of an array's "
                + "elements too); default the type's smallest for int, long and decimal, 0 for float and double, "
                + "1970-01-01 (00:00) for dates and timestamps, 00:00 for a time.");
        this.max = !ranged ? null : value(key + "max", rangeType).description("Largest random value; default the "
                + "type's largest for int, long and decimal, 1 for float and double, 2099-12-31 (23:59:59.999999) for "
                + "dates and timestamps, 23:59:59.999999 for a time.");
        boolean sized = type == null || type.kind() == DataType.Kind.STRING || type.kind() == DataType.Kind.BYTES
                || type.kind() == DataType.Kind.ARRAY;
        this.length = !sized ? null : Option.intOption(key + "length").atLeast(0).description("Characters of a random "
                + "string, bytes of random bytes, elements of an array; default " + DEFAULT_LENGTH + " ("
                + DEFAULT_ARRAY_LENGTH + " for an array).");
        this.nullRate = Option.parsedBy(key + "null-rate", "double", Double::valueOf, "a number from 0 to 1")
                .validate(r -> r >= 0 && r <= 1, "a number from 0 to 1").defaultValue(0.0)
                .description("Fraction of the rows in which a nullable field is null.");
        boolean listed = type == null || type.kind() != DataType.Kind.ARRAY;
        this.values = !listed ? null : Option.parsedBy(key + "values", "list", text -> list(type, text),
                        "values of " + (type == null ? "the field's type" : "type " + type.withNullable(true))
                                + ", separated by commas")
                .description("Values to pick from at random, separated by commas, each trimmed (so a string with a "
                        + "comma cannot be one); instead of min, max and length.");
    }

    /** The options of {@code field}. */
    static FieldOptions of(Field field) {
        return new FieldOptions(field.name(), field.type());
    }

    /** Every setting, for a field called {@code <name>} of any type: the docs' table. */
    static List<Option<?>> template() {
        return new FieldOptions("<name>", null).declared();
    }

    /**
     * Why datagen cannot make values of {@code type}, or null if it can: rows and maps, and arrays
     * of anything but scalars, are not generated.
     */
    static String unsupported(DataType type) {
        return switch (type.kind()) {
            case ROW, MAP -> "a " + type.kind().typeName();
            case ARRAY -> type.elementType().isNested() ? "an array of " + type.elementType().kind().typeName() + "s"
                    : null;
            default -> null;
        };
    }

    /** The options this field accepts, in the order of the docs. */
    List<Option<?>> declared() {
        List<Option<?>> declared = new ArrayList<>();
        for (Option<?> option : Arrays.asList(kind, start, end, min, max, length, nullRate, values)) {
            if (option != null) {
                declared.add(option);
            }
        }
        return declared;
    }

    /**
     * The generator the options make.
     *
     * @throws OptionException naming the option, for settings that contradict each other or the
     *     field (a min above the max, a null rate for a field that is not null)
     */
    FieldGenerator generator(OptionValues options, String owner) {
        double rate = options.get(nullRate);
        if (rate > 0 && !type.nullable()) {
            throw new OptionException(owner + ": option '" + nullRate.key() + "' is " + rate + ", but field '" + name
                    + "' is not null");
        }
        return FieldGenerator.nullable(valuesOf(options, owner), rate);
    }

    private FieldGenerator valuesOf(OptionValues options, String owner) {
        if (options.get(kind) == Kind.SEQUENCE) {
            refuseSet(options, owner, "applies to kind random, and field '" + name + "' is a sequence", min, max,
                    length, values);
            Object[] defaults = sequenceDefaults(type);
            Object first = set(options, start).orElse(defaults[0]);
            Object last = set(options, end).orElse(defaults[1]);
            requireOrdered(first, start, last, end, options, owner);
            return FieldGenerator.sequence(type, first, last);
        }
        refuseSet(options, owner, "applies to kind sequence; set " + kind.key() + ": sequence", start, end);
        Optional<List<Object>> listed = set(options, values);
        if (listed.isPresent()) {
            refuseSet(options, owner, "cannot go with " + values.key() + ", which picks the values", min, max, length);
            return FieldGenerator.oneOf(listed.get());
        }
        DataType rangeType = type.kind() == DataType.Kind.ARRAY ? type.elementType() : type;
        Object[] defaults = randomDefaults(rangeType);
        Object low = defaults == null ? null : set(options, min).orElse(defaults[0]);
        Object high = defaults == null ? null : set(options, max).orElse(defaults[1]);
        if (defaults != null) {
            requireOrdered(low, min, high, max, options, owner);
        }
        try {
            if (type.kind() == DataType.Kind.ARRAY) {
                return FieldGenerator.array(FieldGenerator.random(rangeType, low, high, DEFAULT_LENGTH),
                        set(options, length).orElse(DEFAULT_ARRAY_LENGTH));
            }
            return FieldGenerator.random(type, low, high, length == null ? 0 : set(options, length).orElse(DEFAULT_LENGTH));
        } catch (ArithmeticException e) {
            throw new OptionException(owner + ": field '" + name + "' spans more microseconds from " + min.key() + " to "
                    + max.key() + " than datagen counts (about 292,000 years)");
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void requireOrdered(Object low, Option<Object> lowOption, Object high, Option<Object> highOption,
            OptionValues options, String owner) {
        if (((Comparable) low).compareTo(high) > 0) {
            throw new OptionException(owner + ": option '" + lowOption.key() + "' (" + shown(low, lowOption, options)
                    + ") is more than '" + highOption.key() + "' (" + shown(high, highOption, options) + ")");
        }
    }

    private static String shown(Object value, Option<Object> option, OptionValues options) {
        return value + (options.getOptional(option).isPresent() ? "" : ", its default");
    }

    private static void refuseSet(OptionValues options, String owner, String why, Option<?>... others) {
        for (Option<?> other : others) {
            if (other != null && options.getOptional(other).isPresent()) {
                throw new OptionException(owner + ": option '" + other.key() + "' " + why);
            }
        }
    }

    /** The value the job file sets for {@code option} (null: not declared for this type), if it sets one. */
    private static <T> Optional<T> set(OptionValues options, Option<T> option) {
        return option == null ? Optional.empty() : options.getOptional(option);
    }

    /** An option holding one value of {@code valueType} in its text form (null: the docs' template). */
    private static Option<Object> value(String key, DataType valueType) {
        if (valueType == null) {
            return Option.parsedBy(key, "field type", text -> text, "a value of the field's type");
        }
        DataType shown = valueType.withNullable(true);
        return Option.parsedBy(key, shown.toString(), text -> finite(TextValues.parse(valueType, text)),
                "a " + (valueType.kind() == DataType.Kind.FLOAT || valueType.kind() == DataType.Kind.DOUBLE
                        ? "finite " : "") + shown);
    }

    private static List<Object> list(DataType type, String text) {
        List<Object> list = new ArrayList<>();
        for (String item : text.split(",", -1)) {
            list.add(type == null ? item.trim() : finite(TextValues.parse(type, item.trim())));
        }
        return List.copyOf(list);
    }

    /** {@code value}, unless it is a NaN or an infinity, whose ranges and sequences mean nothing. */
    private static Object finite(Object value) {
        if (value instanceof Double d && !Double.isFinite(d) || value instanceof Float f && !Float.isFinite(f)) {
            throw new IllegalArgumentException("not finite: " + value);
        }
        return value;
    }

    private static boolean sequenceable(DataType type) {
        return sequenceDefaults(type) != null;
    }

    /** The first and last value of a sequence of {@code type} when start and end are not set; null: none. */
    private static Object[] sequenceDefaults(DataType type) {
        return switch (type.kind()) {
            case INT -> new Object[] {0, Integer.MAX_VALUE};
            case LONG, STRING -> new Object[] {0L, Long.MAX_VALUE};
            case FLOAT -> new Object[] {0f, Float.MAX_VALUE};
            case DOUBLE -> new Object[] {0d, Double.MAX_VALUE};
            case DECIMAL -> new Object[] {BigDecimal.ZERO.setScale(type.scale()), largestDecimal(type)};
            case DATE -> new Object[] {LocalDate.EPOCH, LocalDate.MAX};
            case TIME -> new Object[] {LocalTime.MIDNIGHT, LocalTime.MAX};
            case TIMESTAMP -> new Object[] {FIRST_TIMESTAMP, LocalDateTime.MAX};
            case TIMESTAMP_TZ -> new Object[] {Instant.EPOCH, Instant.MAX};
            default -> null;
        };
    }

    /** The min and max of random values of {@code type} when not set; null: the type has no range. */
    private static Object[] randomDefaults(DataType type) {
        return switch (type.kind()) {
            case INT -> new Object[] {Integer.MIN_VALUE, Integer.MAX_VALUE};
            case LONG -> new Object[] {Long.MIN_VALUE, Long.MAX_VALUE};
            case FLOAT -> new Object[] {0f, 1f};
            case DOUBLE -> new Object[] {0d, 1d};
            case DECIMAL -> new Object[] {largestDecimal(type).negate(), largestDecimal(type)};
            case DATE -> new Object[] {LocalDate.EPOCH, LAST_TIMESTAMP.toLocalDate()};
            case TIME -> new Object[] {LocalTime.MIDNIGHT, LAST_TIME};
            case TIMESTAMP -> new Object[] {FIRST_TIMESTAMP, LAST_TIMESTAMP};
            case TIMESTAMP_TZ -> new Object[] {Instant.EPOCH, LAST_TIMESTAMP.toInstant(java.time.ZoneOffset.UTC)};
            default -> null;
        };
    }

    /** 99.99 for a decimal(4, 2). */
    private static BigDecimal largestDecimal(DataType type) {
        return new BigDecimal(java.math.BigInteger.TEN.pow(type.precision()).subtract(java.math.BigInteger.ONE),
                type.scale());
    }
}
