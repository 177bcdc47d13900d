package dev.onceflow.runtime.cli;

import dev.onceflow.runtime.api.FilterFunction;
import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.util.List;

/**
 * The {@code filter} step: keeps the rows for which a CEL expression over their fields is true
 * and drops the others. Stateless; a replay drops exactly the same rows. An expression that does
 * not evaluate to true or false for a row (it fails, or gives null) fails the job naming the row:
 * no row is dropped for an error.
 */
final class FilterStep implements FilterFunction<Row> {

    static final Option<String> WHERE = Option.stringOption("where").required()
            .description("A CEL expression over the input's fields that is true for the rows to keep, such as "
                    + "amount > 100 && currency == 'EUR'.");

    static final List<Option<?>> OPTIONS = List.of(WHERE);

    private final RowExpressions.Expression where;
    private final String owner;

    private FilterStep(RowExpressions.Expression where, String owner) {
        this.where = where;
        this.owner = owner;
    }

    /**
     * The step for rows of {@code schema}, its expression checked now.
     *
     * @throws IllegalArgumentException with one line naming the step, the position and the reason
     */
    static FilterStep of(Schema schema, OptionValues options, String owner) {
        RowExpressions.Expression where = new RowExpressions(schema).compile(options.get(WHERE),
                owner + " option 'where'");
        if (!RowExpressions.isBool(where.resultType())) {
            throw new IllegalArgumentException(owner + " option 'where' is a " + where.resultType().name()
                    + ", not a bool: '" + where.text() + "' must be true or false for each row");
        }
        return new FilterStep(where, owner);
    }

    @Override
    public boolean filter(Row row) {
        Object keep = where.evaluate(row, owner);
        if (keep instanceof Boolean b) {
            return b;
        }
        throw new IllegalStateException(owner + ": '" + where.text() + "' is null for " + RowExpressions.describe(row)
                + "; a row is kept or dropped only for true or false (test nullable fields first: field != null && ...)");
    }
}
