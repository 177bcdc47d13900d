package dev.onceflow.format.json;

import dev.onceflow.conformance.format.FormatConformanceSuite;
import dev.onceflow.spi.format.FormatFactory;
import java.util.List;

/** The json format against rules FMT-1 to FMT-4, with every type, nested ones included. */
class JsonFormatConformanceTest extends FormatConformanceSuite {

    @Override
    protected FormatFactory factory() {
        return new JsonFormatFactory();
    }

    @Override
    protected List<Malformed> malformedRecords() {
        return List.of(
                Malformed.text("", "expected a JSON object, found the end of the record"),
                Malformed.text("{\"id\": 1, \"flag\": tru", "not valid JSON"),
                Malformed.text("[1, 2]", "expected a JSON object, found an array"),
                Malformed.text("{\"flag\": true}", "field 'id': missing, and the field is not null"),
                Malformed.text("{\"id\": null}", "field 'id': null, and the field is not null"),
                Malformed.text("{\"id\": 1.5}", "field 'id': 1.5 is not a whole number"),
                Malformed.text("{\"id\": \"7\"}", "field 'id': expected a whole number, found the string \"7\""),
                Malformed.text("{\"id\": 1, \"small\": 2147483648}", "field 'small': 2147483648 is out of range for an int"),
                Malformed.text("{\"id\": 1, \"amount\": 0.12345678901}", "field 'amount': 0.12345678901 has more than 10 digits after the point"),
                Malformed.text("{\"id\": 1, \"day\": \"06/12/2026\"}", "field 'day': '06/12/2026' is not a date"),
                Malformed.text("{\"id\": 1, \"item\": {\"qty\": 2}}", "field 'item.sku': missing"),
                Malformed.text("{\"id\": 1, \"tags\": [\"a\", 2]}", "field 'tags[1]': expected a string, found the number 2"),
                Malformed.text("{\"id\": 1, \"counts\": {\"a\": \"x\"}}", "field 'counts[a]': expected a whole number"),
                Malformed.text("{\"id\": 1, \"id\": 2}", "field 'id': given twice"),
                Malformed.text("{\"id\": 1} {\"id\": 2}", "unexpected an object after the JSON object"),
                Malformed.text("{\"id\": 1, \"name\": \"" + "x".repeat(100) + "\", \"flag\": 3}",
                        "field 'flag': expected true or false, found the number 3"));
    }
}
