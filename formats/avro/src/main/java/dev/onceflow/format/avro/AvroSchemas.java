package dev.onceflow.format.avro;

import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Schema;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;

/**
 * The type mapping of {@code docs/formats/avro.md}, both ways: the Avro schema a row schema is
 * written in when the job file declares the fields, and the row schema an Avro schema file gives.
 * Both directions refuse what they cannot map with an {@link Unmappable} naming the field.
 */
final class AvroSchemas {

    /** The full name of the record a derived schema writes; nested records are named after their field's path. */
    static final String NAMESPACE = "onceflow";
    static final String RECORD_NAME = "Row";

    /** Avro's rule for names of fields and records. */
    private static final Pattern AVRO_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private AvroSchemas() {
    }

    /** A field the mapping cannot represent; the message is one line that names it by its path. */
    static final class Unmappable extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Unmappable(String path, String reason) {
            super("field '" + path + "': " + reason);
        }
    }

    /**
     * The Avro record that rows of {@code schema} are written in: {@code onceflow.Row}, fields in
     * order, a nullable field as the union {@code ["null", T]} with default null.
     *
     * @throws Unmappable for a field name that is not an Avro name, or a map whose keys are not strings
     */
    static org.apache.avro.Schema toAvro(Schema schema) {
        return record(schema, RECORD_NAME, NAMESPACE, "");
    }

    private static org.apache.avro.Schema record(Schema schema, String name, String namespace, String parentPath) {
        List<org.apache.avro.Schema.Field> fields = new ArrayList<>(schema.size());
        String fullName = namespace + "." + name;
        for (Field field : schema.fields()) {
            String path = parentPath.isEmpty() ? field.name() : parentPath + "." + field.name();
            if (!AVRO_NAME.matcher(field.name()).matches()) {
                throw new Unmappable(path, "not an Avro name (letters, digits and _, not starting with a digit); "
                        + "rename the field, or give an Avro schema in option 'schema-file'");
            }
            org.apache.avro.Schema type = type(field.type(), path, fullName, field.name());
            fields.add(field.type().nullable()
                    ? new org.apache.avro.Schema.Field(field.name(), type, null,
                            org.apache.avro.Schema.Field.NULL_DEFAULT_VALUE)
                    : new org.apache.avro.Schema.Field(field.name(), type));
        }
        return org.apache.avro.Schema.createRecord(name, null, namespace, false, fields);
    }

    /** {@code type} in Avro; a nested row is a record named {@code name} in namespace {@code namespace}. */
    private static org.apache.avro.Schema type(DataType type, String path, String namespace, String name) {
        org.apache.avro.Schema avro = switch (type.kind()) {
            case BOOLEAN -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.BOOLEAN);
            case INT -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.INT);
            case LONG -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.LONG);
            case FLOAT -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.FLOAT);
            case DOUBLE -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.DOUBLE);
            case DECIMAL -> LogicalTypes.decimal(type.precision(), type.scale())
                    .addToSchema(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.BYTES));
            case STRING -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.STRING);
            case BYTES -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.BYTES);
            case DATE -> LogicalTypes.date().addToSchema(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.INT));
            case TIME -> LogicalTypes.timeMicros()
                    .addToSchema(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.LONG));
            case TIMESTAMP -> LogicalTypes.localTimestampMicros()
                    .addToSchema(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.LONG));
            case TIMESTAMP_TZ -> LogicalTypes.timestampMicros()
                    .addToSchema(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.LONG));
            case ROW -> record(type.schema(), name, namespace, path);
            case ARRAY -> org.apache.avro.Schema.createArray(type(type.elementType(), path + "[]", namespace, name));
            case MAP -> {
                if (type.keyType().kind() != DataType.Kind.STRING) {
                    throw new Unmappable(path, "a map with " + type.keyType().withNullable(true)
                            + " keys; Avro maps have string keys");
                }
                yield org.apache.avro.Schema.createMap(type(type.valueType(), path + "[]", namespace, name));
            }
        };
        return type.nullable()
                ? org.apache.avro.Schema.createUnion(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.NULL), avro)
                : avro;
    }

    /**
     * The row schema of an Avro record schema, as a schema file gives it: fields in order, a union
     * of null and one type nullable, anything else not null.
     *
     * @throws Unmappable naming the first field whose type has no row type: a union of two types that
     *     are not null, a recursive record, the type null alone, a decimal of more than 38 digits
     * @throws IllegalArgumentException if the schema is not a record
     */
    static Schema toRowSchema(org.apache.avro.Schema avro) {
        if (avro.getType() != org.apache.avro.Schema.Type.RECORD) {
            throw new IllegalArgumentException("the schema is " + describe(avro) + ", not a record");
        }
        return fields(avro, "", new HashSet<>());
    }

    private static Schema fields(org.apache.avro.Schema record, String parentPath, Set<String> enclosing) {
        if (record.getFields().isEmpty()) {
            throw new Unmappable(parentPath.isEmpty() ? record.getName() : parentPath, "a record without fields");
        }
        enclosing.add(record.getFullName());
        List<Field> fields = new ArrayList<>(record.getFields().size());
        for (org.apache.avro.Schema.Field field : record.getFields()) {
            String path = parentPath.isEmpty() ? field.name() : parentPath + "." + field.name();
            fields.add(Field.of(field.name(), rowType(field.schema(), path, enclosing)));
        }
        enclosing.remove(record.getFullName());
        return Schema.of(fields, List.of());
    }

    private static DataType rowType(org.apache.avro.Schema avro, String path, Set<String> enclosing) {
        if (avro.getType() == org.apache.avro.Schema.Type.UNION) {
            List<org.apache.avro.Schema> types = avro.getTypes();
            List<org.apache.avro.Schema> nonNull = types.stream()
                    .filter(t -> t.getType() != org.apache.avro.Schema.Type.NULL).toList();
            if (nonNull.size() != 1) {
                throw new Unmappable(path, "a union of " + types.stream().map(AvroSchemas::describe)
                        .collect(Collectors.joining(", ")) + "; only a union of null and one other type maps to a field");
            }
            return rowType(nonNull.get(0), path, enclosing).withNullable(nonNull.size() < types.size());
        }
        String logical = logicalName(avro);
        DataType type = switch (avro.getType()) {
            case BOOLEAN -> DataType.BOOLEAN;
            case INT -> switch (logical) {
                case "date" -> DataType.DATE;
                case "time-millis" -> DataType.TIME;
                default -> DataType.INT;
            };
            case LONG -> switch (logical) {
                case "time-micros" -> DataType.TIME;
                case "timestamp-millis", "timestamp-micros", "timestamp-nanos" -> DataType.TIMESTAMP_TZ;
                case "local-timestamp-millis", "local-timestamp-micros", "local-timestamp-nanos" -> DataType.TIMESTAMP;
                default -> DataType.LONG;
            };
            case FLOAT -> DataType.FLOAT;
            case DOUBLE -> DataType.DOUBLE;
            case BYTES, FIXED -> logical.equals("decimal") ? decimal(avro, path) : DataType.BYTES;
            case STRING, ENUM -> DataType.STRING;
            case RECORD -> {
                if (enclosing.contains(avro.getFullName())) {
                    throw new Unmappable(path, "record " + avro.getFullName() + " contains itself; rows cannot nest "
                            + "without end");
                }
                yield DataType.row(fields(avro, path, enclosing));
            }
            case ARRAY -> DataType.array(rowType(avro.getElementType(), path + "[]", enclosing));
            case MAP -> DataType.map(DataType.STRING, rowType(avro.getValueType(), path + "[]", enclosing));
            case NULL -> throw new Unmappable(path, "the type null alone holds no value");
            case UNION -> throw new IllegalStateException("unions are handled above");
        };
        return type.notNull();
    }

    /**
     * The schema to resolve a container file's records to, for rows of {@code rows}: the file's
     * record with only the fields {@code rows} names, matched by name and in {@code rows}' order, each
     * of the file's own type. Keeping the file's types (its units, a {@code fixed} decimal, an enum)
     * means Avro's resolution only drops and reorders fields; the decoder reads the units the file
     * holds. Nested records are matched by name in the same way.
     *
     * @throws Unmappable naming the first field the file does not hold, holds as a type that maps to
     *     another row type, or may hold null where the field is not null
     */
    static org.apache.avro.Schema projection(org.apache.avro.Schema file, Schema rows) {
        if (file.getType() != org.apache.avro.Schema.Type.RECORD) {
            throw new IllegalArgumentException("the file's schema is " + describe(file) + ", not a record");
        }
        return projectRecord(file, rows, "");
    }

    private static org.apache.avro.Schema projectRecord(org.apache.avro.Schema file, Schema rows, String parentPath) {
        List<org.apache.avro.Schema.Field> fields = new ArrayList<>(rows.size());
        for (Field field : rows.fields()) {
            String path = parentPath.isEmpty() ? field.name() : parentPath + "." + field.name();
            org.apache.avro.Schema.Field held = file.getField(field.name());
            if (held == null) {
                throw new Unmappable(path, "not in the file, whose fields are " + file.getFields().stream()
                        .map(org.apache.avro.Schema.Field::name).toList());
            }
            fields.add(new org.apache.avro.Schema.Field(field.name(), project(held.schema(), field.type(), path)));
        }
        return org.apache.avro.Schema.createRecord(file.getName(), file.getDoc(), file.getNamespace(), file.isError(),
                fields);
    }

    private static org.apache.avro.Schema project(org.apache.avro.Schema file, DataType type, String path) {
        if (file.getType() == org.apache.avro.Schema.Type.UNION) {
            List<org.apache.avro.Schema> branches = file.getTypes();
            boolean mayBeNull = branches.stream().anyMatch(t -> t.getType() == org.apache.avro.Schema.Type.NULL);
            if (mayBeNull && !type.nullable()) {
                throw new Unmappable(path, "the file holds " + branches.stream().map(AvroSchemas::describe)
                        .collect(Collectors.joining(" or ")) + ", which may be null, and the field is not null");
            }
            rowType(file, path, new HashSet<>()); // refuses a union of two types that are not null
            org.apache.avro.Schema held = nonNull(file);
            org.apache.avro.Schema projected = project(held, type.withNullable(false), path);
            return org.apache.avro.Schema.createUnion(branches.stream().map(t -> t == held ? projected : t).toList());
        }
        String mismatch = "the file holds " + describe(file) + ", which is not " + type.withNullable(true);
        return switch (type.kind()) {
            case ROW -> {
                if (file.getType() != org.apache.avro.Schema.Type.RECORD) {
                    throw new Unmappable(path, mismatch);
                }
                yield projectRecord(file, type.schema(), path);
            }
            case ARRAY -> {
                if (file.getType() != org.apache.avro.Schema.Type.ARRAY) {
                    throw new Unmappable(path, mismatch);
                }
                yield org.apache.avro.Schema.createArray(project(file.getElementType(), type.elementType(), path + "[]"));
            }
            case MAP -> {
                if (file.getType() != org.apache.avro.Schema.Type.MAP || type.keyType().kind() != DataType.Kind.STRING) {
                    throw new Unmappable(path, mismatch);
                }
                yield org.apache.avro.Schema.createMap(project(file.getValueType(), type.valueType(), path + "[]"));
            }
            default -> {
                if (!rowType(file, path, new HashSet<>()).equals(type.notNull())) {
                    throw new Unmappable(path, mismatch);
                }
                yield file;
            }
        };
    }

    private static DataType decimal(org.apache.avro.Schema avro, String path) {
        LogicalTypes.Decimal decimal = (LogicalTypes.Decimal) avro.getLogicalType();
        if (decimal.getPrecision() > DataType.MAX_DECIMAL_PRECISION) {
            throw new Unmappable(path, "decimal of precision " + decimal.getPrecision() + "; at most "
                    + DataType.MAX_DECIMAL_PRECISION + " digits are supported");
        }
        return DataType.decimal(decimal.getPrecision(), decimal.getScale());
    }

    /** The logical type's name, such as {@code "timestamp-micros"}, or {@code ""}. */
    static String logicalName(org.apache.avro.Schema avro) {
        LogicalType logical = avro.getLogicalType();
        return logical == null ? "" : logical.getName();
    }

    /**
     * How many units of a time or timestamp in {@code avro} make a second: 1,000 for the
     * {@code -millis} logical types, 1,000,000,000 for {@code -nanos}, else 1,000,000.
     */
    static long unitsPerSecond(org.apache.avro.Schema avro) {
        String logical = logicalName(avro);
        if (logical.endsWith("-millis")) {
            return 1_000L;
        }
        return logical.endsWith("-nanos") ? 1_000_000_000L : 1_000_000L;
    }

    /** The one branch of a union of null and one type, or {@code avro} itself if it is not a union. */
    static org.apache.avro.Schema nonNull(org.apache.avro.Schema avro) {
        if (avro.getType() != org.apache.avro.Schema.Type.UNION) {
            return avro;
        }
        for (org.apache.avro.Schema branch : avro.getTypes()) {
            if (branch.getType() != org.apache.avro.Schema.Type.NULL) {
                return branch;
            }
        }
        throw new IllegalStateException("a union of null alone: " + avro);
    }

    /** A type as a user would name it: {@code int}, {@code record Order}, {@code long (timestamp-micros)}. */
    static String describe(org.apache.avro.Schema avro) {
        String type = avro.getType().getName();
        return switch (avro.getType()) {
            case RECORD, ENUM, FIXED -> type + " " + avro.getFullName();
            default -> logicalName(avro).isEmpty() ? type : type + " (" + logicalName(avro) + ")";
        };
    }
}
