package dev.onceflow.spi.factory;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/** Validated option values of one connector, created by {@link #validate}. Immutable. */
public final class OptionValues {

    private final Map<String, Object> values;

    private OptionValues(Map<String, Object> values) {
        this.values = values;
    }

    /**
     * Checks raw values (from a job file) against the declared options: every key must be
     * declared, every required option set, every value parse and pass validation.
     *
     * @param owner how errors name the connector, for example {@code "sink 'filesystem'"}
     * @throws OptionException with a one-line message naming the first problem found
     */
    public static OptionValues validate(String owner, Map<String, String> raw, Collection<Option<?>> declared) {
        Map<String, Option<?>> byKey = new LinkedHashMap<>();
        for (Option<?> option : declared) {
            byKey.put(option.key(), option);
        }
        for (String key : new TreeSet<>(raw.keySet())) {
            if (!byKey.containsKey(key)) {
                throw new OptionException(owner + ": unknown option '" + key + "'; accepted options: "
                        + String.join(", ", byKey.keySet()));
            }
        }
        Map<String, Object> values = new HashMap<>();
        for (Option<?> option : declared) {
            String value = raw.get(option.key());
            if (value != null) {
                values.put(option.key(), option.parse(owner, value));
            } else if (option.isRequired()) {
                throw new OptionException(owner + ": missing required option '" + option.key() + "' ("
                        + option.accepted() + ")" + (option.description().isEmpty() ? "" : ": " + option.description()));
            } else {
                option.defaultValue().ifPresent(v -> values.put(option.key(), v));
            }
        }
        return new OptionValues(Map.copyOf(values));
    }

    /** The value, or the option's default if it has one; empty if neither. */
    public <T> Optional<T> getOptional(Option<T> option) {
        @SuppressWarnings("unchecked")
        T value = (T) values.get(option.key());
        return Optional.ofNullable(value);
    }

    /**
     * The value or the default.
     *
     * @throws IllegalStateException if the option is unset and has no default (use {@link #getOptional})
     */
    public <T> T get(Option<T> option) {
        return getOptional(option).orElseThrow(() -> new IllegalStateException(
                "option '" + option.key() + "' is not set and has no default"));
    }
}
