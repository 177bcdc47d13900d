package dev.onceflow.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code filter} and {@code select} steps in a job that runs: CEL expressions over the fields
 * of rows, checked when the file is loaded (one line naming the step and the column) and
 * evaluated per row.
 */
class RowStepsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;


    /** {@link JobFiles#valid}: datagen (100 rows over keys key-0..key-2) -> count-by-key -> these steps -> JSON lines. */
    private String job(String steps) {
        return JobFiles.validWith(dir, "    uid: count\n", "    uid: count\n" + steps.indent(2))
                .replace("    path: " + dir.resolve("out") + "\n", "    path: " + dir.resolve("out") + "\n  format: json\n");
    }

    /** Runs {@code yaml} with the command line. */
    private JobFiles.Run run(String yaml) throws IOException {
        return JobFiles.run(JobFiles.write(dir, "steps.yaml", yaml));
    }

    private static final String STEPS = """
            - type: filter
              uid: even-counts
              options:
                where: count % 2 == 0 && key != 'key-1'
            - type: select
              uid: shape
              options:
                order: id
                customer: key
                count: count
                half: count / 2
                label: key.upperAscii() + '#' + string(count)
                big: count > 20
            """;

    @Test
    void filterKeepsTheRowsItsExpressionIsTrueForAndSelectMakesTheFieldsItLists() throws Exception {
        JobFiles.Run run = run(job(STEPS));

        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("datagen -> count-by-key -> filter -> select -> filesystem");
        Map<String, List<Long>> countsByCustomer = new TreeMap<>();
        List<String> orders = new ArrayList<>();
        for (String line : committedLines()) {
            JsonNode row = JSON.readTree(line);
            List<String> names = new ArrayList<>();
            row.fieldNames().forEachRemaining(names::add);
            assertThat(names).containsExactly("order", "customer", "count", "half", "label", "big");
            String customer = row.get("customer").asText();
            long count = row.get("count").asLong();
            assertThat(row.get("half").asLong()).isEqualTo(count / 2);
            assertThat(row.get("label").asText()).isEqualTo(customer.toUpperCase() + "#" + count);
            assertThat(row.get("big").asBoolean()).isEqualTo(count > 20);
            assertThat(Long.parseLong(row.get("order").asText()) % 3).as("datagen's key of the id")
                    .isEqualTo(Long.parseLong(customer.substring("key-".length())));
            countsByCustomer.computeIfAbsent(customer, c -> new ArrayList<>()).add(count);
            orders.add(row.get("order").asText());
        }
        // key-0 has ids 0, 3, ..., 99 (34 rows), key-2 has 2, 5, ..., 98 (33): their even counts only
        assertThat(countsByCustomer.keySet()).containsExactly("key-0", "key-2");
        assertThat(countsByCustomer.get("key-0")).containsExactlyInAnyOrderElementsOf(evens(34));
        assertThat(countsByCustomer.get("key-2")).containsExactlyInAnyOrderElementsOf(evens(33));
        assertThat(orders).doesNotHaveDuplicates();
    }

    @Test
    void aggregateKeepsARunningCountSumMinAndMaxPerKeyOfOneOrSeveralFields() throws Exception {
        JobFiles.Run run = run(job("""
                - type: select
                  options: {id: id, key: key, count: count, even: count % 2 == 0}
                - type: aggregate
                  uid: totals
                  options: {key: key, total: sum(count), n: count(), low: min(count), high: max(count)}
                - type: aggregate
                  uid: by-parity
                  options: {key: "key, even", per_parity: count()}
                """));

        assertThat(run.status()).as(run.err()).isZero();
        Map<String, Long> rowsByKey = new TreeMap<>();
        for (String line : committedLines()) {
            JsonNode row = JSON.readTree(line);
            long count = row.get("count").asLong(); // the k-th row of its key, as count-by-key numbered it
            assertThat(row.get("total").asLong()).as(line).isEqualTo(count * (count + 1) / 2);
            assertThat(row.get("n").asLong()).as(line).isEqualTo(count);
            assertThat(row.get("low").asLong()).as(line).isEqualTo(1);
            assertThat(row.get("high").asLong()).as(line).isEqualTo(count);
            assertThat(row.get("per_parity").asLong()).as(line).isEqualTo((count + 1) / 2);
            rowsByKey.merge(row.get("key").asText(), 1L, Long::sum);
        }
        assertThat(rowsByKey).isEqualTo(Map.of("key-0", 34L, "key-1", 33L, "key-2", 33L));
    }

    @Test
    void anAggregateThatDoesNotFitTheInputIsRefusedNamingIt() throws Exception {
        assertThat(errorFor("- {type: aggregate, options: {key: customer, n: count()}}"))
                .isEqualTo("steps[1] 'aggregate' option 'key': 'customer' is not a field of the input; fields: id, "
                        + "key, payload, count");
        assertThat(errorFor("- {type: aggregate, options: {key: key, total: sum(payload)}}"))
                .isEqualTo("steps[1] 'aggregate' option 'total': sum of field 'payload', a string not null; sum takes "
                        + "int, long, float, double or decimal fields");
        assertThat(errorFor("- {type: aggregate, options: {key: key, total: avg(count)}}"))
                .isEqualTo("steps[1] 'aggregate' option 'total': 'avg(count)' is not an aggregate; use count(), "
                        + "sum(field), min(field) or max(field)");
        assertThat(errorFor("- {type: aggregate, options: {key: key, count: count()}}"))
                .isEqualTo("steps[1] 'aggregate' option 'count': 'count' is a field of the input already; give the "
                        + "aggregate another name");
        assertThat(errorFor("- {type: aggregate, options: {n: count()}}"))
                .isEqualTo("steps[1] 'aggregate' needs option 'key': the field or fields (a, b) to aggregate by");
    }

    private static List<Long> evens(long upTo) {
        List<Long> evens = new ArrayList<>();
        for (long n = 2; n <= upTo; n += 2) {
            evens.add(n);
        }
        return evens;
    }

    private List<String> committedLines() throws IOException {
        List<String> lines = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir.resolve("out"))) {
            for (Path part : files.filter(f -> !f.getFileName().toString().startsWith(".")).sorted().toList()) {
                lines.addAll(Files.readAllLines(part, StandardCharsets.UTF_8));
            }
        }
        return lines;
    }

    private String errorFor(String steps) throws Exception {
        Path file = JobFiles.write(dir, "job.yaml", job(steps));
        JobFileLoader loader = new JobFileLoader(Connectors.discover(null));
        JobFileException e = catchThrowableOfType(JobFileException.class, () -> loader.load(file));
        assertThat(e).as("the job file must be rejected").isNotNull();
        assertThat(e.getMessage()).as("one line").doesNotContain("\n").startsWith(file + ": ");
        return e.getMessage().substring(file.toString().length() + 2);
    }

    @Test
    void anExpressionThatDoesNotFitTheInputIsRefusedNamingTheStepAndTheColumn() throws Exception {
        assertThat(errorFor("- {type: filter, options: {where: \"cnt > 2\"}}"))
                .isEqualTo("steps[1] 'filter' option 'where' at column 1: undeclared reference to 'cnt' (in container "
                        + "'') (fields: id, key, payload, count)");
        assertThat(errorFor("- {type: filter, options: {where: \"key > 2\"}}"))
                .isEqualTo("steps[1] 'filter' option 'where' at column 5: found no matching overload for '_>_' applied "
                        + "to '(string, int)' (fields: id, key, payload, count)");
        assertThat(errorFor("- {type: filter, options: {where: \"count + 1\"}}"))
                .isEqualTo("steps[1] 'filter' option 'where' is a int, not a bool: 'count + 1' must be true or false "
                        + "for each row");
        assertThat(errorFor("- {type: filter, options: {where: \"count >\"}}"))
                .startsWith("steps[1] 'filter' option 'where' at column 8: mismatched input '<EOF>'");
        assertThat(errorFor("- {type: filter, options: {when: \"count > 1\"}}"))
                .contains("steps[1] 'filter'").contains("'when'");
        assertThat(errorFor("- {type: select, options: {keys: \"[key, id]\"}}"))
                .isEqualTo("steps[1] 'select' field 'keys' is a list, which no field type holds; convert it with "
                        + "int(), double(), string() or bool()");
        assertThat(errorFor("- {type: select}"))
                .isEqualTo("steps[1] 'select' lists no fields; give each output field as name: expression");
    }

    @Test
    void aRowAnExpressionFailsOnFailsTheJobNamingTheRecord() throws Exception {
        JobFiles.Run run = run(job("- {type: filter, options: {where: \"100 / (count - 5) > 0\"}}"));

        assertThat(run.status()).isNotZero();
        assertThat(run.err()).containsPattern("steps\\[1\\] 'filter': '100 / \\(count - 5\\) > 0' failed on record "
                + "id=\\d+: / by zero$");
    }
}
