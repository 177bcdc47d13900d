package dev.onceflow.format.debezium;

import dev.onceflow.conformance.format.FormatConformanceSuite;
import dev.onceflow.spi.format.FormatFactory;
import java.util.List;

/**
 * The debezium-json format against rules FMT-1 to FMT-4 on inserts of every type, nested ones
 * included; the other kinds' round trip is in {@link DebeziumJsonFormatTest}.
 */
class DebeziumJsonFormatConformanceTest extends FormatConformanceSuite {

    @Override
    protected FormatFactory factory() {
        return new DebeziumJsonFormatFactory();
    }

    @Override
    protected List<Malformed> malformedRecords() {
        return List.of(
                Malformed.text("", "expected a change event (a JSON object), found the end of the record"),
                Malformed.text("{\"op\": \"c\", \"after\": {\"id\": 1", "not valid JSON"),
                Malformed.text("[1, 2]", "expected a change event (a JSON object), found ARRAY"),
                Malformed.text("{\"before\": null, \"after\": {\"id\": 1}}", "member 'op' is missing"),
                Malformed.text("{\"op\": \"x\", \"after\": {\"id\": 1}}", "op 'x' is not one of c, r, u, d"),
                Malformed.text("{\"op\": \"t\"}", "op 't' (a truncate)"),
                Malformed.text("{\"op\": \"c\", \"after\": null}", "op 'c' needs member 'after' to be an object"),
                Malformed.text("{\"op\": \"d\", \"before\": null, \"after\": null}", "op 'd' needs member 'before'"),
                Malformed.text("{\"op\": \"c\", \"after\": {\"flag\": true}}", "after: field 'id': missing"),
                Malformed.text("{\"op\": \"c\", \"after\": {\"id\": 1, \"small\": 1.5}}",
                        "after: field 'small': 1.5 is not a whole number"),
                Malformed.text("{\"op\": \"c\", \"after\": {\"id\": 1, \"amount\": \"12,50\"}}",
                        "after: field 'amount': '12,50' is not a number"),
                Malformed.text("{\"op\": \"c\", \"after\": {\"id\": 1, \"local_ts\": 1765000000000000}}",
                        "after: field 'local_ts': expected an ISO-8601 timestamp string"),
                Malformed.text("{\"op\": \"c\", \"op\": \"d\", \"after\": {\"id\": 1}}", "Duplicate field 'op'"),
                Malformed.text("{\"op\": \"c\", \"after\": {\"id\": 1, \"score\": 1e100000}}", "after: field 'score': "),
                Malformed.text("{\"op\": \"c\", \"after\": {\"id\": 1e3}}", "after: field 'id': 1E+3 is not a whole number"),
                Malformed.text("{\"schema\": {}, \"payload\": {\"op\": \"c\", \"after\": {\"id\": 1}}}",
                        "set the format's schema-include: true"));
    }
}
