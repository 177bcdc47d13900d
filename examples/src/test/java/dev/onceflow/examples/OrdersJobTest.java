package dev.onceflow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceflow.conformance.CommittedFiles;
import dev.onceflow.conformance.JobProcess;
import dev.onceflow.runtime.fault.FaultPoints;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code examples/orders.yaml} on its shipped data: JSON orders of 50 or more through a running
 * count and total per customer into JSON part files, exactly once, also across a crash; every
 * value of every order arrives as it was written (decimals to the cent, unicode, line breaks in
 * text, nested items).
 */
@Timeout(300)
class OrdersJobTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** The example and its data laid out as in the repository, so its relative paths hold. */
    private Path layOut(String extraSteps) throws IOException {
        return ShippedExample.layOut(dir, "orders.yaml", extraSteps);
    }

    @Test
    void theExampleCountsEachCustomersOrdersAndKeepsEveryValue() throws Exception {
        Path job = layOut("");
        JobProcess run = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("run.log"));
        assertThat(run.await(3)).as("log:\n%s", run.tail()).isZero();

        checkOutput();
    }

    @Test
    void aCrashBeforeACommitAndAResumeGiveEachOrderOnce() throws Exception {
        Path job = layOut("  - {type: throttle, options: {rows-per-second: 500}}\n");
        Files.writeString(job, Files.readString(job).replace("interval: 500ms", "interval: 200ms"));
        JobProcess crashed = JobProcess.start(job, "latest",
                JobProcess.Faults.haltAt(FaultPoints.SINK_BEFORE_COMMIT + "@3"), dir.resolve("crash.log"));
        assertThat(crashed.await(3)).as("halted at the fault point; log:\n%s", crashed.tail()).isEqualTo(86);
        assertThat(committedLines()).as("the crash came mid-run").hasSizeLessThan(2000);

        JobProcess resumed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("resume.log"));
        assertThat(resumed.await(3)).as("log:\n%s", resumed.tail()).isZero();

        checkOutput();
    }

    @Test
    void aRecordThatDoesNotFitFailsTheJobNamingTheFileTheOffsetAndTheField() throws Exception {
        Path job = layOut("");
        Path broken = dir.resolve("examples/data/orders/orders-2.json");
        List<String> lines = new ArrayList<>(Files.readAllLines(broken, StandardCharsets.UTF_8));
        long offset = 0;
        for (int i = 0; i < 10; i++) {
            offset += lines.get(i).getBytes(StandardCharsets.UTF_8).length + 1;
        }
        lines.set(10, lines.get(10).replaceFirst("\"amount\": [0-9.]+", "\"amount\": 12.345"));
        Files.write(broken, lines, StandardCharsets.UTF_8);

        JobProcess run = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("run.log"));
        assertThat(run.await(3)).as("log:\n%s", run.tail()).isEqualTo(1);
        assertThat(Files.readString(dir.resolve("run.log")))
                .contains("cannot read the record at byte offset " + offset + " of file ")
                .contains("orders-2.json (format json): field 'amount': 12.345 has more than 2 digits after the point for decimal(10, 2)");
    }

    /**
     * Every input order of 50 or more once, with its values; each customer's counts 1..n, and
     * each total the previous one plus the order's amount.
     */
    private void checkOutput() throws IOException {
        Map<Long, JsonNode> input = new HashMap<>();
        try (Stream<Path> files = Files.list(dir.resolve("examples/data/orders"))) {
            for (Path file : files.toList()) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    JsonNode order = JSON.readTree(line);
                    if (new BigDecimal(order.get("amount").asText()).compareTo(BigDecimal.valueOf(50)) >= 0) {
                        input.put(order.get("order_id").asLong(), order);
                    }
                }
            }
        }
        assertThat(input).as("the filter leaves some out").hasSizeBetween(1, 1999);
        List<String> output = committedLines();
        Map<Long, JsonNode> byId = new HashMap<>();
        Map<String, List<Long>> counts = new TreeMap<>();
        Map<String, TreeMap<Long, JsonNode>> byCustomer = new TreeMap<>();
        for (String line : output) {
            JsonNode row = JSON.readTree(line);
            long id = row.get("order_id").asLong();
            assertThat(byId.put(id, row)).as("order %d twice", id).isNull();
            counts.computeIfAbsent(row.get("customer").asText(), c -> new ArrayList<>()).add(row.get("customer_orders").asLong());
            byCustomer.computeIfAbsent(row.get("customer").asText(), c -> new TreeMap<>())
                    .put(row.get("customer_orders").asLong(), row);
        }
        assertThat(byId.keySet()).as("every order of 50 or more once").isEqualTo(input.keySet());
        byCustomer.forEach((customer, rows) -> {
            BigDecimal total = BigDecimal.ZERO;
            for (JsonNode row : rows.values()) {
                total = total.add(new BigDecimal(row.get("amount").asText()));
                assertThat(new BigDecimal(row.get("customer_total").asText())).as("total of %s at order %s", customer,
                        row.get("order_id")).isEqualByComparingTo(total);
            }
        });
        for (Map.Entry<Long, JsonNode> entry : input.entrySet()) {
            JsonNode in = entry.getValue();
            JsonNode out = byId.get(entry.getKey());
            assertThat(new BigDecimal(out.get("amount").asText())).as("amount of %d", entry.getKey())
                    .isEqualByComparingTo(new BigDecimal(in.get("amount").asText()));
            assertThat(out.get("customer")).isEqualTo(in.get("customer"));
            assertThat(out.get("note")).isEqualTo(in.get("note"));
            assertThat(Instant.parse(out.get("placed_at").asText())).isEqualTo(Instant.parse(in.get("placed_at").asText()));
            assertThat(out.get("items").size()).isEqualTo(in.get("items").size());
            for (int i = 0; i < in.get("items").size(); i++) {
                assertThat(new BigDecimal(out.get("items").get(i).get("price").asText()))
                        .isEqualByComparingTo(new BigDecimal(in.get("items").get(i).get("price").asText()));
                assertThat(out.get("items").get(i).get("sku")).isEqualTo(in.get("items").get(i).get("sku"));
            }
        }
        counts.forEach((customer, values) -> assertThat(values.stream().sorted().toList()).as("counts of %s", customer)
                .isEqualTo(java.util.stream.LongStream.rangeClosed(1, values.size()).boxed().toList()));
    }

    private List<String> committedLines() throws IOException {
        return CommittedFiles.lines(dir.resolve("onceflow-data/orders/output"));
    }
}
