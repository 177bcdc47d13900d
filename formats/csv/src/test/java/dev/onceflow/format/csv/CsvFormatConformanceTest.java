package dev.onceflow.format.csv;

import dev.onceflow.conformance.format.FormatConformanceSuite;
import dev.onceflow.conformance.format.TestRows;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.row.Schema;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The csv format against rules FMT-1 to FMT-4, with every scalar type. */
class CsvFormatConformanceTest extends FormatConformanceSuite {

    @Override
    protected FormatFactory factory() {
        return new CsvFormatFactory();
    }

    @Override
    protected Schema schema() {
        return TestRows.SCALARS;
    }

    @Override
    protected List<Malformed> malformedRecords() {
        String twelve = "1,true,3,1.5,2.5,1.5,x,AA==,2026-12-06,10:00,2026-12-06T10:00,2026-12-06T10:00:00Z";
        return List.of(
                Malformed.text("", "an empty record"),
                Malformed.text("1,true", "2 columns, but the schema has 12 fields; field 'small' is missing"),
                Malformed.text(twelve + ",extra", "more than the 12 columns"),
                Malformed.text("," + twelve.substring(1), "field 'id' (column 1): empty, and the field is not null"),
                Malformed.text("x" + twelve.substring(1), "field 'id' (column 1): 'x' is not a long"),
                Malformed.text(twelve.replace(",3,", ",3.5,"), "field 'small' (column 3): '3.5' is not a int"),
                Malformed.text(twelve.replace("true", "yes"), "field 'flag' (column 2): 'yes' is not a boolean"),
                Malformed.text(twelve + "\n" + twelve, "more than one CSV row"),
                Malformed.text("1,\"unterminated", "not valid CSV"));
    }

    @Override
    protected Optional<Map.Entry<Schema, String>> unrepresentableSchema() {
        return Optional.of(Map.entry(TestRows.EVERY_TYPE, "item"));
    }
}
