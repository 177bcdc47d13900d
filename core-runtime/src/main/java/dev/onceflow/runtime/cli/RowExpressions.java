package dev.onceflow.runtime.cli;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelIssue;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationResult;
import dev.cel.common.types.CelKind;
import dev.cel.common.types.CelType;
import dev.cel.common.types.ListType;
import dev.cel.common.types.MapType;
import dev.cel.common.types.NullableType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.values.CelByteString;
import dev.cel.common.values.NullValue;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerBuilder;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.row.TextValues;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Expressions of the {@code filter} and {@code select} steps, in CEL (the Common Expression
 * Language, {@code dev.cel:cel}) over the fields of a row: each field is a variable of its name.
 * Expressions are parsed and type-checked against the input schema when the job file is loaded, so
 * a typo or a type error is one line naming the step and the position; a row is only evaluated.
 *
 * <p>Field types in CEL: boolean is {@code bool}; int and long are {@code int}; float, double and
 * decimal are {@code double} (a decimal is compared and computed as a double; a {@code select}
 * that passes a field on by name keeps it exact); string, bytes; date, timestamp and timestamptz
 * are {@code timestamp} (a date at midnight UTC, a timestamp without zone read as UTC); time is a
 * {@code duration} since midnight; a nested row is a map from field name to value, an array a
 * list, a map a map. Numbers of different types compare with each other ({@code amount > 10}).
 * A nullable scalar field may be compared with {@code null}; using a null value otherwise (as a
 * number, in a function) fails the row, and so the job, naming the record. Immutable; programs
 * are thread-safe.
 */
final class RowExpressions {

    private static final CelOptions OPTIONS = CelOptions.current().enableHeterogeneousNumericComparisons(true).build();
    private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().setOptions(OPTIONS)
            .addLibraries(CelExtensions.strings(), CelExtensions.math(OPTIONS)).build();
    private static final Pattern IDENTIFIER = Pattern.compile("[_a-zA-Z][_a-zA-Z0-9]*");
    /** CEL's reserved words cannot name a variable; fields of such names cannot be used in expressions. */
    private static final Set<String> RESERVED = Set.of("false", "in", "null", "true", "as", "break", "const",
            "continue", "else", "for", "function", "if", "import", "let", "loop", "package", "namespace", "return",
            "var", "void", "while");

    private final Schema schema;
    private final CelCompiler compiler;

    RowExpressions(Schema schema) {
        this.schema = schema;
        CelCompilerBuilder builder = CelCompilerFactory.standardCelCompilerBuilder().setOptions(OPTIONS)
                .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
                .addLibraries(CelExtensions.strings(), CelExtensions.math(OPTIONS));
        for (Field field : schema.fields()) {
            if (isVariableName(field.name())) {
                builder.addVar(field.name(), celType(field.type(), true));
            }
        }
        this.compiler = builder.build();
    }

    /** Whether a field of this name is a variable in expressions. */
    static boolean isVariableName(String name) {
        return IDENTIFIER.matcher(name).matches() && !RESERVED.contains(name);
    }

    /**
     * {@code text} parsed and checked against the schema.
     *
     * @param owner how an error names the step and option, such as {@code "steps[1] 'filter' option 'where'"}
     * @throws IllegalArgumentException with one line: the owner, the line and column, and CEL's reason
     */
    Expression compile(String text, String owner) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException(owner + " is empty; write an expression over the input's fields");
        }
        CelValidationResult result = compiler.compile(text);
        if (result.hasError()) {
            CelIssue issue = result.getAllIssues().get(0);
            String reason = issue.getMessage();
            int candidates = reason.indexOf(" (candidates:");
            if (candidates > 0) {
                reason = reason.substring(0, candidates);
            }
            var location = issue.getSourceLocation();
            String position = text.contains("\n") ? "line " + location.getLine() + " column " + (location.getColumn() + 1)
                    : "column " + (location.getColumn() + 1);
            throw new IllegalArgumentException(owner + " at " + position + ": " + reason.replace('\n', ' ')
                    + " (fields: " + String.join(", ", schema.names()) + ")");
        }
        try {
            CelAbstractSyntaxTree ast = result.getAst();
            return new Expression(text.strip(), ast.getResultType(), RUNTIME.createProgram(ast), schema);
        } catch (Exception e) {
            throw new IllegalArgumentException(owner + ": " + e.getMessage());
        }
    }

    /** A checked expression, ready to evaluate rows of the schema it was checked against. */
    static final class Expression {
        private final String text;
        private final CelType resultType;
        private final CelRuntime.Program program;
        private final Schema schema;

        private Expression(String text, CelType resultType, CelRuntime.Program program, Schema schema) {
            this.text = text;
            this.resultType = resultType;
            this.program = program;
            this.schema = schema;
        }

        String text() {
            return text;
        }

        CelType resultType() {
            return resultType;
        }

        /**
         * The value of the expression for {@code row}, in CEL's representation ({@link NullValue}
         * for null).
         *
         * @throws IllegalStateException naming {@code owner}, the record and CEL's reason when the
         *     evaluation fails (a null used as a number, a division by zero, an index out of range)
         */
        Object evaluate(Row row, String owner) {
            try {
                return program.eval(name -> {
                    int position = schema.indexOf(name);
                    return position < 0 ? Optional.empty()
                            : Optional.of(toCel(schema.field(position).type(), row.get(position)));
                });
            } catch (CelEvaluationException e) {
                String reason = e.getMessage().replaceFirst("^evaluation error at <input>:\\d+: ", "");
                // a null where a value was needed is what "no matching overload" means at run time
                String hint = reason.contains("No matching overload") ? "; if a field may be null, test it first "
                        + "(field != null && ...)" : "";
                throw new IllegalStateException(owner + ": '" + TextValues.abbreviate(text) + "' failed on "
                        + describe(row) + ": " + reason + hint);
            }
        }
    }

    /** How errors name a record: by its primary key's values, or by its first characters. */
    static String describe(Row row) {
        Schema schema = row.schema();
        if (schema.primaryKey().isEmpty()) {
            return "record " + TextValues.abbreviate(row.toString());
        }
        StringBuilder name = new StringBuilder("record");
        for (String key : schema.primaryKey()) {
            name.append(' ').append(key).append('=').append(TextValues.abbreviate(String.valueOf(row.get(key))));
        }
        return name.toString();
    }

    /** The CEL type of a field; {@code top}: a top-level field, whose nullable scalars may be compared with null. */
    private static CelType celType(DataType type, boolean top) {
        CelType base = switch (type.kind()) {
            case BOOLEAN -> SimpleType.BOOL;
            case INT, LONG -> SimpleType.INT;
            case FLOAT, DOUBLE, DECIMAL -> SimpleType.DOUBLE;
            case STRING -> SimpleType.STRING;
            case BYTES -> SimpleType.BYTES;
            case DATE, TIMESTAMP, TIMESTAMP_TZ -> SimpleType.TIMESTAMP;
            case TIME -> SimpleType.DURATION;
            case ROW -> MapType.create(SimpleType.STRING, SimpleType.DYN);
            case ARRAY -> ListType.create(celType(type.elementType(), false));
            case MAP -> MapType.create(celType(type.keyType(), false), celType(type.valueType(), false));
        };
        if (!type.nullable()) {
            return base;
        }
        return switch (base.kind()) {
            case BOOL, INT, DOUBLE, STRING, BYTES -> top ? NullableType.create(base) : SimpleType.DYN;
            default -> SimpleType.DYN;
        };
    }

    /** A row's value as CEL holds it; null as {@link NullValue}. */
    static Object toCel(DataType type, Object value) {
        if (value == null) {
            return NullValue.NULL_VALUE;
        }
        return switch (type.kind()) {
            case BOOLEAN, LONG, DOUBLE, STRING -> value;
            case INT -> ((Integer) value).longValue();
            case FLOAT -> ((Float) value).doubleValue();
            case DECIMAL -> ((BigDecimal) value).doubleValue();
            case BYTES -> CelByteString.of((byte[]) value);
            case DATE -> ((LocalDate) value).atStartOfDay().toInstant(ZoneOffset.UTC);
            case TIMESTAMP -> ((LocalDateTime) value).toInstant(ZoneOffset.UTC);
            case TIMESTAMP_TZ -> value;
            case TIME -> Duration.ofNanos(((LocalTime) value).toNanoOfDay());
            case ROW -> {
                Row nested = (Row) value;
                Map<String, Object> fields = new LinkedHashMap<>();
                for (int i = 0; i < nested.arity(); i++) {
                    fields.put(nested.schema().field(i).name(), toCel(nested.schema().field(i).type(), nested.get(i)));
                }
                yield fields;
            }
            case ARRAY -> {
                List<Object> elements = new ArrayList<>();
                for (Object element : (List<?>) value) {
                    elements.add(toCel(type.elementType(), element));
                }
                yield elements;
            }
            case MAP -> {
                Map<Object, Object> entries = new LinkedHashMap<>();
                ((Map<?, ?>) value).forEach((k, v) -> entries.put(toCel(type.keyType(), k), toCel(type.valueType(), v)));
                yield entries;
            }
        };
    }

    /**
     * The field type a {@code select} gives a computed value of CEL type {@code type}, or empty if
     * it has none (a list, a map, a duration, a value of unknown type).
     */
    static Optional<DataType> fieldType(CelType type) {
        return Optional.ofNullable(switch (type.kind()) {
            case BOOL -> DataType.BOOLEAN;
            case INT -> DataType.LONG;
            case DOUBLE -> DataType.DOUBLE;
            case STRING -> DataType.STRING;
            case BYTES -> DataType.BYTES;
            case TIMESTAMP -> DataType.TIMESTAMP_TZ;
            default -> null;
        });
    }

    /** A CEL value of a type {@link #fieldType} accepts, as a row value of that type. */
    static Object fromCel(Object value) {
        if (value instanceof NullValue) {
            return null;
        }
        if (value instanceof CelByteString bytes) {
            return bytes.toByteArray();
        }
        if (value instanceof Instant || value instanceof Long || value instanceof Double || value instanceof String
                || value instanceof Boolean) {
            return value;
        }
        throw new IllegalStateException("a value of " + value.getClass().getSimpleName() + " where a field value "
                + "was expected");
    }

    static boolean isBool(CelType type) {
        return type.kind() == CelKind.BOOL;
    }
}
