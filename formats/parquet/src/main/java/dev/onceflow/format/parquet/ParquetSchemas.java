package dev.onceflow.format.parquet;

import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.row.Schema;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types;

/**
 * The Parquet schema of rows of a {@link Schema}: the type mapping table of
 * docs/formats/parquet.md. Nullable fields are {@code optional}, {@code not null} ones
 * {@code required}; arrays and maps are the three-level {@code LIST} and {@code MAP} groups the
 * Parquet format specifies, with the standard names {@code list}/{@code element} and
 * {@code key_value}/{@code key}/{@code value}.
 */
final class ParquetSchemas {

    /** The name of the message, the file's root group. */
    static final String MESSAGE_NAME = "onceflow";
    static final String LIST_GROUP = "list";
    static final String ELEMENT = "element";
    static final String MAP_GROUP = "key_value";
    static final String KEY = "key";
    static final String VALUE = "value";

    /** Decimals of up to this many digits are an int32, up to {@link #MAX_INT64_DIGITS} an int64. */
    static final int MAX_INT32_DIGITS = 9;
    static final int MAX_INT64_DIGITS = 18;

    private ParquetSchemas() {
    }

    static MessageType messageType(Schema schema) {
        Types.MessageTypeBuilder message = Types.buildMessage();
        for (Field field : schema.fields()) {
            message.addField(type(field.name(), field.type()));
        }
        return message.named(MESSAGE_NAME);
    }

    static Type type(String name, DataType type) {
        Repetition repetition = type.nullable() ? Repetition.OPTIONAL : Repetition.REQUIRED;
        return switch (type.kind()) {
            case BOOLEAN -> Types.primitive(PrimitiveTypeName.BOOLEAN, repetition).named(name);
            case INT -> Types.primitive(PrimitiveTypeName.INT32, repetition).named(name);
            case LONG -> Types.primitive(PrimitiveTypeName.INT64, repetition).named(name);
            case FLOAT -> Types.primitive(PrimitiveTypeName.FLOAT, repetition).named(name);
            case DOUBLE -> Types.primitive(PrimitiveTypeName.DOUBLE, repetition).named(name);
            case DECIMAL -> decimal(name, type, repetition);
            case STRING -> Types.primitive(PrimitiveTypeName.BINARY, repetition)
                    .as(LogicalTypeAnnotation.stringType()).named(name);
            case BYTES -> Types.primitive(PrimitiveTypeName.BINARY, repetition).named(name);
            case DATE -> Types.primitive(PrimitiveTypeName.INT32, repetition)
                    .as(LogicalTypeAnnotation.dateType()).named(name);
            case TIME -> Types.primitive(PrimitiveTypeName.INT64, repetition)
                    .as(LogicalTypeAnnotation.timeType(false, TimeUnit.MICROS)).named(name);
            case TIMESTAMP -> Types.primitive(PrimitiveTypeName.INT64, repetition)
                    .as(LogicalTypeAnnotation.timestampType(false, TimeUnit.MICROS)).named(name);
            case TIMESTAMP_TZ -> Types.primitive(PrimitiveTypeName.INT64, repetition)
                    .as(LogicalTypeAnnotation.timestampType(true, TimeUnit.MICROS)).named(name);
            case ROW -> {
                Types.GroupBuilder<org.apache.parquet.schema.GroupType> group = Types.buildGroup(repetition);
                for (Field field : type.schema().fields()) {
                    group.addField(type(field.name(), field.type()));
                }
                yield group.named(name);
            }
            case ARRAY -> Types.buildGroup(repetition).as(LogicalTypeAnnotation.listType())
                    .addField(Types.repeatedGroup().addField(type(ELEMENT, type.elementType())).named(LIST_GROUP))
                    .named(name);
            case MAP -> Types.buildGroup(repetition).as(LogicalTypeAnnotation.mapType())
                    .addField(Types.repeatedGroup().addField(type(KEY, type.keyType()))
                            .addField(type(VALUE, type.valueType())).named(MAP_GROUP))
                    .named(name);
        };
    }

    private static Type decimal(String name, DataType type, Repetition repetition) {
        LogicalTypeAnnotation annotation = LogicalTypeAnnotation.decimalType(type.scale(), type.precision());
        if (type.precision() <= MAX_INT32_DIGITS) {
            return Types.primitive(PrimitiveTypeName.INT32, repetition).as(annotation).named(name);
        }
        if (type.precision() <= MAX_INT64_DIGITS) {
            return Types.primitive(PrimitiveTypeName.INT64, repetition).as(annotation).named(name);
        }
        return Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition)
                .length(decimalBytes(type.precision())).as(annotation).named(name);
    }

    /** The fewest bytes whose two's complement holds every unscaled value of {@code precision} digits. */
    static int decimalBytes(int precision) {
        BigInteger largest = BigInteger.TEN.pow(precision).subtract(BigInteger.ONE);
        return largest.bitLength() / 8 + 1;
    }

    /**
     * The part of a file's schema that holds {@code schema}'s fields, matched by name, in the schema's
     * order: what a reader asks Parquet for. Each column keeps the file's own type, which is the one
     * {@link #messageType} gives the field, or differs only in that a {@code not null} column may be
     * read into a nullable field, and in the names of a list's or map's inner levels, which writers
     * name differently.
     *
     * @throws MalformedRecordException with one line naming the first field the file lacks or holds
     *     with another type
     */
    static MessageType requestedSchema(Schema schema, MessageType file) throws MalformedRecordException {
        List<Type> columns = new ArrayList<>();
        for (Field field : schema.fields()) {
            if (!file.containsField(field.name())) {
                throw new MalformedRecordException("field '" + field.name() + "' is not in the file, whose columns are "
                        + file.getFields().stream().map(Type::getName).toList());
            }
            Type column = file.getType(field.name());
            checkMatches(type(field.name(), field.type()), column, field.name(), field.type());
            columns.add(column);
        }
        return new MessageType(file.getName(), columns);
    }

    private static void checkMatches(Type expected, Type actual, String path, DataType type)
            throws MalformedRecordException {
        if (actual.isRepetition(Repetition.REPEATED)
                || actual.isRepetition(Repetition.OPTIONAL) && expected.isRepetition(Repetition.REQUIRED)) {
            throw mismatch(expected, actual, path, type);
        }
        if (expected.isPrimitive()) {
            if (!actual.isPrimitive() || !sameValues(expected.asPrimitiveType(), actual)) {
                throw mismatch(expected, actual, path, type);
            }
            return;
        }
        if (actual.isPrimitive()
                || !Objects.equals(expected.getLogicalTypeAnnotation(), actual.getLogicalTypeAnnotation())) {
            throw mismatch(expected, actual, path, type);
        }
        GroupType group = actual.asGroupType();
        switch (type.kind()) {
            case ROW -> {
                for (Field field : type.schema().fields()) {
                    String inner = path + "." + field.name();
                    if (!group.containsField(field.name())) {
                        throw new MalformedRecordException("field '" + inner + "' is not in the file");
                    }
                    checkMatches(type(field.name(), field.type()), group.getType(field.name()), inner, field.type());
                }
            }
            case ARRAY -> {
                GroupType entries = repeatedEntries(expected, actual, path, type, 1);
                checkMatches(type(ELEMENT, type.elementType()), entries.getType(0), path + "[]", type.elementType());
            }
            case MAP -> {
                GroupType entries = repeatedEntries(expected, actual, path, type, 2);
                checkMatches(type(KEY, type.keyType()), entries.getType(0), path + " key", type.keyType());
                checkMatches(type(VALUE, type.valueType()), entries.getType(1), path + " value", type.valueType());
            }
            default -> throw new IllegalStateException("not a group: " + type);
        }
    }

    /** The repeated group inside a list or map, holding {@code fields} fields, whatever its name. */
    private static GroupType repeatedEntries(Type expected, Type actual, String path, DataType type, int fields)
            throws MalformedRecordException {
        GroupType group = actual.asGroupType();
        if (group.getFieldCount() != 1 || group.getType(0).isPrimitive()
                || !group.getType(0).isRepetition(Repetition.REPEATED)
                || group.getType(0).asGroupType().getFieldCount() != fields) {
            throw mismatch(expected, actual, path, type);
        }
        return group.getType(0).asGroupType();
    }

    /** Whether a column stores values as {@code expected} does: physical type, length and logical type. */
    private static boolean sameValues(org.apache.parquet.schema.PrimitiveType expected, Type actual) {
        org.apache.parquet.schema.PrimitiveType primitive = actual.asPrimitiveType();
        return primitive.getPrimitiveTypeName() == expected.getPrimitiveTypeName()
                && primitive.getTypeLength() == expected.getTypeLength()
                && Objects.equals(primitive.getLogicalTypeAnnotation(), expected.getLogicalTypeAnnotation());
    }

    private static MalformedRecordException mismatch(Type expected, Type actual, String path, DataType type) {
        return new MalformedRecordException("field '" + path + "' is declared " + type + ", read from Parquet as '"
                + oneLine(expected) + "', but the file holds '" + oneLine(actual) + "'");
    }

    private static String oneLine(Type type) {
        return type.toString().replaceAll("\\s+", " ").strip();
    }
}
