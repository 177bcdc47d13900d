package dev.onceflow.runtime.cli;

import dev.onceflow.runtime.api.MapFunction;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowKind;
import dev.onceflow.spi.row.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code select} step: rows of the fields it lists, in that order, each the value of a CEL
 * expression over the input's fields. A field listed by an input field's name alone
 * ({@code customer: customer}, or renamed: {@code buyer: customer}) is passed on as it is, type and
 * value exact (decimals stay decimals); any other expression is computed, and its field's type
 * comes from the expression's: bool to boolean, int to long, double to double, string, bytes,
 * timestamp to timestamptz (nullable). Fields not listed are dropped. The input's primary key is
 * kept when every one of its fields is passed on. Stateless.
 */
final class SelectStep implements MapFunction<Row, Row> {

    /** How one output field is made: a position of the input, or an expression. */
    private record Source(int position, RowExpressions.Expression expression) {
    }

    private final Schema output;
    private final Source[] sources;
    private final String owner;

    private SelectStep(Schema output, Source[] sources, String owner) {
        this.output = output;
        this.sources = sources;
        this.owner = owner;
    }

    /**
     * The step for rows of {@code input}, making the fields {@code fields} lists (name to
     * expression, in order), each expression checked now.
     *
     * @throws IllegalArgumentException with one line naming the step, the field, the position and the reason
     */
    static SelectStep of(Schema input, Map<String, String> fields, String owner) {
        if (fields.isEmpty()) {
            throw new IllegalArgumentException(owner + " lists no fields; give each output field as name: expression");
        }
        RowExpressions expressions = new RowExpressions(input);
        List<Field> out = new ArrayList<>();
        Source[] sources = new Source[fields.size()];
        List<String> renamedKey = new ArrayList<>();
        int i = 0;
        for (Map.Entry<String, String> entry : fields.entrySet()) {
            String name = entry.getKey();
            String text = entry.getValue() == null ? "" : entry.getValue().strip();
            int position = input.indexOf(text);
            if (position >= 0) {
                sources[i] = new Source(position, null);
                out.add(Field.of(name, input.field(position).type()));
            } else {
                RowExpressions.Expression expression = expressions.compile(text, owner + " field '" + name + "'");
                DataType type = RowExpressions.fieldType(expression.resultType()).orElseThrow(() ->
                        new IllegalArgumentException(owner + " field '" + name + "' is a " + expression.resultType().name()
                                + ", which no field type holds; convert it with int(), double(), string() or bool()"));
                sources[i] = new Source(-1, expression);
                out.add(Field.of(name, type.withNullable(true)));
            }
            i++;
        }
        for (String key : input.primaryKey()) {
            int keyPosition = input.position(key);
            for (int j = 0; j < sources.length; j++) {
                if (sources[j].position() == keyPosition) {
                    renamedKey.add(out.get(j).name());
                    break;
                }
            }
        }
        List<String> primaryKey = renamedKey.size() == input.primaryKey().size() ? renamedKey : List.of();
        try {
            return new SelectStep(Schema.of(out, primaryKey), sources, owner);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(owner + ": " + e.getMessage());
        }
    }

    /** The schema of the rows the step emits. */
    Schema output() {
        return output;
    }

    @Override
    public Row map(Row row) {
        Object[] values = new Object[sources.length];
        for (int i = 0; i < sources.length; i++) {
            Source source = sources[i];
            values[i] = source.expression() == null ? row.get(source.position())
                    : RowExpressions.fromCel(source.expression().evaluate(row, owner + " field '"
                            + output.field(i).name() + "'"));
        }
        Row selected = Row.of(output, values);
        return row.kind() == RowKind.INSERT ? selected : selected.withKind(row.kind()); // CHG-6
    }
}
