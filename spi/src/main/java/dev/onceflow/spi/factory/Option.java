package dev.onceflow.spi.factory;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One declared connector option: key, type, default, description and validation, declared once
 * and used to validate job files, print {@code --help} and generate the options tables in
 * {@code docs/}. Immutable; each method returns a new option.
 *
 * <pre>{@code
 * static final Option<Long> ROWS = Option.longOption("rows")
 *         .defaultValue(1000L).atLeast(1L).description("Number of records; omit for unbounded.");
 * }</pre>
 *
 * @param <T> the value type
 */
public final class Option<T> {

    private final String key;
    private final String typeName;
    private final Function<String, T> parser;
    private final T defaultValue;
    private final boolean required;
    private final String description;
    private final Predicate<T> validator;
    private final Function<T, String> problem;
    private final String accepted;
    private final boolean hidden;

    private Option(String key, String typeName, Function<String, T> parser, T defaultValue, boolean required,
            String description, Predicate<T> validator, String accepted) {
        this(key, typeName, parser, defaultValue, required, description, validator, v -> null, accepted, false);
    }

    private Option(String key, String typeName, Function<String, T> parser, T defaultValue, boolean required,
            String description, Predicate<T> validator, Function<T, String> problem, String accepted, boolean hidden) {
        this.key = Objects.requireNonNull(key, "key");
        this.typeName = typeName;
        this.parser = parser;
        this.defaultValue = defaultValue;
        this.required = required;
        this.description = description;
        this.validator = validator;
        this.problem = problem;
        this.accepted = accepted;
        this.hidden = hidden;
    }

    /** A text option. */
    public static Option<String> stringOption(String key) {
        return new Option<>(key, "string", s -> s, null, false, "", v -> true, "any text");
    }

    /** A whole-number option. */
    public static Option<Long> longOption(String key) {
        return new Option<>(key, "long", Long::valueOf, null, false, "", v -> true, "a whole number");
    }

    /** A 32-bit whole-number option. */
    public static Option<Integer> intOption(String key) {
        return new Option<>(key, "int", Integer::valueOf, null, false, "", v -> true, "a whole number");
    }

    /** A {@code true}/{@code false} option. */
    public static Option<Boolean> booleanOption(String key) {
        return new Option<>(key, "boolean", Option::parseBoolean, null, false, "", v -> true, "true or false");
    }

    /** A duration such as {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h} (a bare number means milliseconds). */
    public static Option<Duration> durationOption(String key) {
        return new Option<>(key, "duration", Option::parseDuration, null, false, "", v -> true,
                "a duration such as 500ms, 10s, 5m");
    }

    /**
     * An option read by {@code parser}, for values none of the other kinds reads: a value in a
     * row field's type, a fraction. The parser throws an unchecked exception for text it does not
     * accept; the message then says the value and {@code whatIsAccepted}.
     *
     * @param typeName the type as the docs' tables show it
     */
    public static <T> Option<T> parsedBy(String key, String typeName, Function<String, T> parser,
            String whatIsAccepted) {
        return new Option<>(key, typeName, Objects.requireNonNull(parser, "parser"), null, false, "", v -> true,
                whatIsAccepted);
    }

    /** One of an enum's constants, matched case-insensitively with {@code -} for {@code _}. */
    public static <E extends Enum<E>> Option<E> enumOption(String key, Class<E> type) {
        StringBuilder names = new StringBuilder();
        for (E constant : type.getEnumConstants()) {
            names.append(names.length() == 0 ? "" : ", ").append(asText(constant));
        }
        return new Option<>(key, "enum", s -> Enum.valueOf(type, s.trim().toUpperCase(Locale.ROOT).replace('-', '_')),
                null, false, "", v -> true, "one of " + names);
    }

    /** This option with a default, used when the job file does not set it. */
    public Option<T> defaultValue(T value) {
        return new Option<>(key, typeName, parser, value, false, description, validator, problem, accepted, hidden);
    }

    /** This option, which must be set. */
    public Option<T> required() {
        return new Option<>(key, typeName, parser, null, true, description, validator, problem, accepted, hidden);
    }

    /** This option with its documentation text. */
    public Option<T> description(String text) {
        return new Option<>(key, typeName, parser, defaultValue, required, text, validator, problem, accepted, hidden);
    }

    /** This option, accepting only values that pass {@code test}, described as {@code whatIsAccepted}. */
    public Option<T> validate(Predicate<T> test, String whatIsAccepted) {
        return new Option<>(key, typeName, parser, defaultValue, required, description, validator.and(test), problem,
                whatIsAccepted, hidden);
    }

    /**
     * This option, accepting only values for which {@code problemOf} returns null; otherwise what
     * it returns says which part of the value is wrong, as a phrase that follows the value
     * ({@code "is an existing file, not a directory"}), and {@code whatIsAccepted} what would do.
     * The function must not throw.
     */
    public Option<T> check(Function<T, String> problemOf, String whatIsAccepted) {
        Function<T, String> first = problem;
        return new Option<>(key, typeName, parser, defaultValue, required, description, validator,
                v -> {
                    String wrong = first.apply(v);
                    return wrong != null ? wrong : problemOf.apply(v);
                }, whatIsAccepted, hidden);
    }

    /**
     * This option, whose value error messages never repeat: a password, or a URL that may hold one
     * in its query. A {@linkplain #check check} then says which part is wrong without quoting it.
     */
    public Option<T> hiddenInMessages() {
        return new Option<>(key, typeName, parser, defaultValue, required, description, validator, problem, accepted,
                true);
    }

    /** Shorthand for a lower bound on a comparable value. */
    public <C extends Comparable<C>> Option<T> atLeast(C minimum) {
        @SuppressWarnings("unchecked")
        Predicate<T> test = v -> ((C) v).compareTo(minimum) >= 0;
        return validate(test, accepted + " >= " + minimum);
    }

    public String key() {
        return key;
    }

    public String typeName() {
        return typeName;
    }

    public Optional<T> defaultValue() {
        return Optional.ofNullable(defaultValue);
    }

    public boolean isRequired() {
        return required;
    }

    public String description() {
        return description;
    }

    /** What values are accepted, in words, for error messages and docs. */
    public String accepted() {
        return accepted;
    }

    /**
     * Parses and validates a raw value.
     *
     * @throws OptionException naming the option, the value and what is accepted
     */
    public T parse(String owner, String raw) {
        T value;
        try {
            value = parser.apply(raw.trim());
        } catch (RuntimeException e) {
            throw invalid(owner, raw, null);
        }
        if (!validator.test(value)) {
            throw invalid(owner, raw, null);
        }
        String wrong = problem.apply(value);
        if (wrong != null) {
            throw invalid(owner, raw, wrong);
        }
        return value;
    }

    /** Whether error messages leave this option's value out. */
    public boolean isHiddenInMessages() {
        return hidden;
    }

    private OptionException invalid(String owner, String raw, String wrong) {
        String what = hidden ? (wrong != null ? wrong : "has a value that is not accepted")
                : "has value '" + raw + "'" + (wrong != null ? ", which " + wrong : "");
        return new OptionException(owner + ": option '" + key + "' " + what + "; expected " + accepted
                + (hidden ? " (the value is not shown: it may hold a password)" : ""));
    }

    private static Boolean parseBoolean(String s) {
        if (s.equalsIgnoreCase("true")) {
            return true;
        }
        if (s.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException(s);
    }

    /**
     * The longest duration {@link #parseDuration} accepts: its milliseconds must fit in a
     * {@code long}, since timers and schedules count in them (about 292 million years).
     */
    public static final Duration MAX_DURATION = Duration.ofDays(Long.MAX_VALUE / 86_400_000L);

    /**
     * Parses {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 2d}, or a bare number of milliseconds.
     *
     * @throws IllegalArgumentException whose message names the text and what is accepted, for
     *     text that is not a duration or one longer than {@link #MAX_DURATION}
     */
    public static Duration parseDuration(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        int split = 0;
        while (split < s.length() && Character.isDigit(s.charAt(split))) {
            split++;
        }
        String unit = s.substring(split).trim();
        if (split == 0 || !List.of("", "ms", "s", "m", "min", "h", "d").contains(unit)) {
            throw new IllegalArgumentException("'" + text + "' is not a duration such as 500ms, 10s, 5m");
        }
        // 99999999999999999h overflowed into an ArithmeticException, which nobody caught: a stack
        // trace instead of a message. Too many digits for a long is the same mistake.
        try {
            long amount = Long.parseLong(s.substring(0, split));
            Duration duration = switch (unit) {
                case "s" -> Duration.ofSeconds(amount);
                case "m", "min" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                case "d" -> Duration.ofDays(amount);
                default -> Duration.ofMillis(amount);
            };
            if (duration.compareTo(MAX_DURATION) > 0) {
                throw new ArithmeticException("longer than " + MAX_DURATION);
            }
            return duration;
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is longer than the longest duration accepted, "
                    + MAX_DURATION.toDays() + "d");
        }
    }

    /** The default as a job file would spell it ({@code exactly-once}, {@code 10s}), if there is one. */
    public Optional<String> defaultText() {
        return defaultValue().map(Option::asText);
    }

    /** A value as a job file would spell it: enum constants in lower case with {@code -}, durations with a unit. */
    public static String asText(Object value) {
        if (value instanceof Enum<?> constant) {
            return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
        if (value instanceof Duration duration) {
            long millis = duration.toMillis();
            if (millis % 3_600_000 == 0 && millis != 0) {
                return millis / 3_600_000 + "h";
            }
            if (millis % 60_000 == 0 && millis != 0) {
                return millis / 60_000 + "m";
            }
            return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
        }
        return String.valueOf(value);
    }

    @Override
    public String toString() {
        return key;
    }
}
