package dev.onceflow.conformance.filesystem;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.format.TestRows;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The rows the whole-file crash tests write and the check that each came through once, as it was. */
final class CrashTestRows {

    private CrashTestRows() {
    }

    /** Row {@code id} of {@link TestRows#EVERY_TYPE}: full, all nulls or extremes in turn. */
    static Row row(long id) {
        return switch ((int) (id % 3)) {
            case 0 -> TestRows.full(id);
            case 1 -> TestRows.nulls(id);
            default -> TestRows.extremes(id);
        };
    }

    /** A job file's {@code schema: fields:} for {@code schema}. */
    static Map<String, Object> jobFields(Schema schema) {
        Map<String, Object> fields = new LinkedHashMap<>();
        for (Field field : schema.fields()) {
            fields.put(field.name(), field.type().toString());
        }
        return fields;
    }

    /** Every row of {@code input} is in {@code output} exactly once, equal value for value. */
    static void assertEachOnce(Map<Long, Row> input, List<Row> output) {
        Map<Long, Row> byId = new HashMap<>();
        for (Row row : output) {
            Long id = (Long) row.get("id");
            assertThat(byId.put(id, row)).as("row %d twice", id).isNull();
        }
        assertThat(byId.keySet()).as("every row once").isEqualTo(input.keySet());
        input.forEach((id, row) -> assertThat(byId.get(id)).as("row %d", id).isEqualTo(row));
    }
}
