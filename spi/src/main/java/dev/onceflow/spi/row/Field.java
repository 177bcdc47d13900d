package dev.onceflow.spi.row;

import java.util.Objects;

/**
 * A named, typed field of a {@link Schema}.
 *
 * @param name the field's name: not empty, unique within its schema, case-sensitive
 * @param type the field's type, which says whether the field may be {@code null}
 */
public record Field(String name, DataType type) {

    public Field {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a field name cannot be empty");
        }
    }

    /** A field of {@code type}. */
    public static Field of(String name, DataType type) {
        return new Field(name, type);
    }

    /** {@code name type}, with the name quoted in backticks where {@link DataType#parse} needs it. */
    @Override
    public String toString() {
        return TypeParser.quoteName(name) + " " + type;
    }
}
