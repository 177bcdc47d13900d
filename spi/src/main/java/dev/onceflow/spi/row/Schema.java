package dev.onceflow.spi.row;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The shape of the {@link Row}s a connector produces or consumes: ordered, named, typed fields
 * and an optional primary key. Immutable; two schemas are equal when their fields (names, types,
 * order) and primary keys are.
 *
 * <p>A primary key names the fields that identify a row, for sinks that write by key (upserts,
 * document ids). Its fields are made {@link DataType#notNull() not null}, as in SQL. Rule ROW-3.
 */
public final class Schema {

    private final List<Field> fields;
    private final List<String> primaryKey;
    private final Map<String, Integer> positions;

    private Schema(List<Field> fields, List<String> primaryKey) {
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("a schema needs at least one field");
        }
        Map<String, Integer> byName = new HashMap<>();
        for (int i = 0; i < fields.size(); i++) {
            Field f = Objects.requireNonNull(fields.get(i), "field");
            if (byName.putIfAbsent(f.name(), i) != null) {
                throw new IllegalArgumentException("field '" + f.name() + "' is declared twice");
            }
        }
        Set<String> seen = new HashSet<>();
        List<Field> withKey = new ArrayList<>(fields);
        for (String name : primaryKey) {
            Integer position = byName.get(Objects.requireNonNull(name, "primary key field"));
            if (position == null) {
                throw new IllegalArgumentException("primary key field '" + name + "' is not a field; fields: "
                        + String.join(", ", byName.keySet().stream().sorted().toList()));
            }
            if (!seen.add(name)) {
                throw new IllegalArgumentException("primary key field '" + name + "' is named twice");
            }
            Field f = withKey.get(position);
            if (f.type().isNested()) {
                throw new IllegalArgumentException("primary key field '" + name + "' is a " + f.type().kind().typeName()
                        + "; a key is made of scalar fields");
            }
            withKey.set(position, new Field(f.name(), f.type().notNull()));
        }
        this.fields = List.copyOf(withKey);
        this.primaryKey = List.copyOf(primaryKey);
        // a HashMap, not Map.copyOf: String caches its hash, and formats look names up per value
        this.positions = java.util.Collections.unmodifiableMap(byName);
    }

    /**
     * A schema of {@code fields} in this order, keyed by {@code primaryKey} (empty: no key).
     *
     * @throws IllegalArgumentException naming the field, if there are no fields, a name is declared twice, a key field
     *     does not exist or is named twice, or a key field is a row, array or map
     */
    public static Schema of(List<Field> fields, List<String> primaryKey) {
        return new Schema(fields, primaryKey);
    }

    /** A schema of {@code fields} without a primary key. */
    public static Schema of(Field... fields) {
        return new Schema(List.of(fields), List.of());
    }

    /** This schema's fields keyed by {@code keyFields}. */
    public Schema withPrimaryKey(String... keyFields) {
        return new Schema(fields, List.of(keyFields));
    }

    /** The fields, in order. */
    public List<Field> fields() {
        return fields;
    }

    /** The names of the primary key's fields, in key order; empty if there is no key. */
    public List<String> primaryKey() {
        return primaryKey;
    }

    /** The number of fields. */
    public int size() {
        return fields.size();
    }

    /** The field at {@code position}. */
    public Field field(int position) {
        return fields.get(position);
    }

    /** The field named {@code name}, if there is one. */
    public Optional<Field> field(String name) {
        Integer position = positions.get(name);
        return position == null ? Optional.empty() : Optional.of(fields.get(position));
    }

    /** The position of the field named {@code name}, or -1. */
    public int indexOf(String name) {
        Integer position = positions.get(name);
        return position == null ? -1 : position;
    }

    /**
     * The position of the field named {@code name}.
     *
     * @throws IllegalArgumentException naming the field and the fields there are, if it does not exist
     */
    public int position(String name) {
        Integer position = positions.get(name);
        if (position == null) {
            throw new IllegalArgumentException("no field '" + name + "'; fields: " + String.join(", ", names()));
        }
        return position;
    }

    /** The field names, in order. */
    public List<String> names() {
        return fields.stream().map(Field::name).toList();
    }

    /** The positions of the primary key's fields, in key order. */
    public int[] primaryKeyPositions() {
        return primaryKey.stream().mapToInt(positions::get).toArray();
    }

    /** {@code <a long, b string>}, the field list as a nested row type writes it. */
    String fieldList() {
        return fields.stream().map(Field::toString).collect(Collectors.joining(", ", "<", ">"));
    }

    @Override
    public boolean equals(Object o) {
        // rows are checked against their field's schema per value, mostly the very same instance
        return this == o || o instanceof Schema s && fields.equals(s.fields) && primaryKey.equals(s.primaryKey);
    }

    @Override
    public int hashCode() {
        return 31 * fields.hashCode() + primaryKey.hashCode();
    }

    /** {@code row<id long not null, name string> primary key (id)}. */
    @Override
    public String toString() {
        String row = "row" + fieldList();
        return primaryKey.isEmpty() ? row : row + " primary key (" + String.join(", ", primaryKey) + ")";
    }
}
