package dev.onceflow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceflow.conformance.JobProcess;
import dev.onceflow.runtime.fault.FaultPoints;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job file with event time: JSON orders whose {@code placed_at} is out of order by up to 4 s,
 * read with {@code max-out-of-orderness: 5s}, aggregated per customer and 10 s of event time.
 * The committed rows are exactly one per customer and window that has orders, with the count, sum,
 * max and min computed here from the input file, also when the job halts before a commit and
 * resumes from its latest checkpoint.
 */
@Timeout(300)
class EventTimeWindowJobTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ORDERS = 3000;
    private static final long WINDOW = Duration.ofSeconds(10).toMillis();
    /**
     * Throttles the source so that it emits watermarks while it reads (every 200 ms, some 3 s of
     * event time apart): with watermarks that ignored the out-of-orderness, orders up to 4 s behind
     * would be late; with none while reading, every window would close at the end of the input.
     */
    private static final String THROTTLE = "  - {type: throttle, parallelism: 1, options: {rows-per-second: 300}}\n";
    private static final List<String> CUSTOMERS = List.of("Ada", "Grace", "Edsger", "Barbara");

    @TempDir
    Path dir;

    /** One row of the output, or of the expectation: what a window of a customer holds. */
    private record Window(Instant end, long orders, BigDecimal total, BigDecimal biggest, long firstOrder) {
    }

    /**
     * {@code ORDERS} orders 50 ms apart in event time, each placed up to 4 s earlier than its slot
     * (so later orders may come with earlier times, never more than 5 s behind the latest).
     */
    private void writeOrders() throws IOException {
        writeOrders(List.of());
    }

    /** The orders, then {@code more} lines. */
    private void writeOrders(List<String> more) throws IOException {
        Random random = new Random(11);
        Instant base = Instant.parse("2026-12-01T10:00:03Z"); // windows start and end off the batches the reader reads
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < ORDERS; i++) {
            Instant placed = base.plusMillis(i * 50L - random.nextInt(4000));
            BigDecimal amount = BigDecimal.valueOf(100 + random.nextInt(50_000), 2);
            lines.add("{\"order_id\": " + (i + 1) + ", \"customer\": \"" + CUSTOMERS.get(random.nextInt(CUSTOMERS.size()))
                    + "\", \"placed_at\": \"" + placed + "\", \"amount\": " + amount + "}");
        }
        lines.addAll(more);
        Files.write(Files.createDirectories(dir.resolve("orders")).resolve("orders.json"), lines, StandardCharsets.UTF_8);
    }

    private Path jobFile(String extraSteps) throws IOException {
        String yaml = """
                name: orders-per-minute
                parallelism: 2
                source:
                  type: file
                  parallelism: 1
                  options:
                    path: %s
                  format: json
                  schema:
                    fields:
                      order_id: long not null
                      customer: string not null
                      placed_at: timestamptz not null
                      amount: decimal(10, 2) not null
                    primary-key: [order_id]
                  event-time:
                    field: placed_at
                    max-out-of-orderness: 5s
                steps:
                %s  - type: aggregate
                    uid: per-minute
                    options:
                      key: customer
                      window: 10s
                      orders: count()
                      total: sum(amount)
                      biggest: max(amount)
                      first_order: min(order_id)
                sink:
                  type: filesystem
                  options:
                    path: %s
                  format: json
                checkpoints:
                  interval: 200ms
                  dir: %s
                """.formatted(dir.resolve("orders"), extraSteps, dir.resolve("out"), dir.resolve("checkpoints"));
        return Files.writeString(dir.resolve("job.yaml"), yaml);
    }

    @Test
    void eachCustomersWindowComesOutOnceWithItsAggregates() throws Exception {
        writeOrders();
        JobProcess run = JobProcess.start(jobFile(THROTTLE), "latest", JobProcess.Faults.NONE, dir.resolve("run.log"));
        assertThat(run.await(3)).as("log:\n%s", run.tail()).isZero();

        assertThat(committedWindows()).isEqualTo(expectedWindows());
        assertThat(Files.readString(dir.resolve("run.log"))).doesNotContain("late record");
    }

    @Test
    void aCrashBeforeACommitAndAResumeGiveEachWindowOnce() throws Exception {
        writeOrders();
        Path job = jobFile(THROTTLE);
        JobProcess crashed = JobProcess.start(job, "latest",
                JobProcess.Faults.haltAt(FaultPoints.SINK_BEFORE_COMMIT + "@8"), dir.resolve("crash.log"));
        assertThat(crashed.await(3)).as("halted at the fault point; log:\n%s", crashed.tail())
                .isEqualTo(FaultPoints.HALT_EXIT_CODE);
        Map<String, Window> expected = expectedWindows();
        assertThat(committedWindows()).as("the crash came mid-run, after windows were committed")
                .isNotEmpty().hasSizeLessThan(expected.size());

        JobProcess resumed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("resume.log"));
        assertThat(resumed.await(3)).as("log:\n%s", resumed.tail()).isZero();

        assertThat(committedWindows()).isEqualTo(expected);
        assertThat(Files.readString(dir.resolve("resume.log"))).doesNotContain("late record");
    }

    @Test
    void anOrderBehindAWindowAlreadyEmittedIsLeftOutCountedAndWarnedAbout() throws Exception {
        writeOrders(List.of("{\"order_id\": " + (ORDERS + 1) + ", \"customer\": \"Ada\", "
                + "\"placed_at\": \"2026-12-01T10:00:01Z\", \"amount\": 1.00}"));
        JobProcess run = JobProcess.start(jobFile(THROTTLE), "latest", JobProcess.Faults.NONE, dir.resolve("run.log"));
        assertThat(run.await(3)).as("log:\n%s", run.tail()).isZero();

        List<Long> late = new ArrayList<>();
        Map<String, Window> expected = expectedWindows(late);
        assertThat(late).containsExactly(ORDERS + 1L);
        assertThat(committedWindows()).isEqualTo(expected);
        assertThat(Files.readString(dir.resolve("run.log"))).containsOnlyOnce("came after the watermark")
                .containsPattern("read " + (ORDERS + 1) + " records, wrote \\d+ records, left out 1 late record "
                        + "\\(onceflow.records.late\\)\\.");
    }

    /**
     * Per customer and window start, what its orders in the input file add up to. An order whose
     * window ended a whole window before the latest time read before it is late in a run that
     * emits watermarks while it reads (they lag 5 s and a few intervals of 200 ms behind): it is
     * left out, and its id added to {@code late}.
     */
    private Map<String, Window> expectedWindows(List<Long> late) throws IOException {
        Map<String, Window> expected = new HashMap<>();
        Instant latest = Instant.MIN;
        boolean outOfOrder = false;
        for (String line : Files.readAllLines(dir.resolve("orders/orders.json"), StandardCharsets.UTF_8)) {
            JsonNode order = JSON.readTree(line);
            Instant placed = Instant.parse(order.get("placed_at").asText());
            long start = Math.floorDiv(placed.toEpochMilli(), WINDOW) * WINDOW;
            if (latest.isAfter(Instant.ofEpochMilli(start + 2 * WINDOW))) {
                late.add(order.get("order_id").asLong());
                continue;
            }
            outOfOrder |= placed.isBefore(latest);
            latest = placed.isAfter(latest) ? placed : latest;
            BigDecimal amount = new BigDecimal(order.get("amount").asText()).setScale(2);
            long id = order.get("order_id").asLong();
            expected.merge(order.get("customer").asText() + "@" + Instant.ofEpochMilli(start),
                    new Window(Instant.ofEpochMilli(start + WINDOW), 1, amount, amount, id),
                    (a, b) -> new Window(a.end(), a.orders() + b.orders(), a.total().add(b.total()),
                            a.biggest().max(b.biggest()), Math.min(a.firstOrder(), b.firstOrder())));
        }
        assertThat(outOfOrder).as("the input is out of order").isTrue();
        return expected;
    }

    /** {@link #expectedWindows(List)} of an input without late orders. */
    private Map<String, Window> expectedWindows() throws IOException {
        List<Long> late = new ArrayList<>();
        Map<String, Window> expected = expectedWindows(late);
        assertThat(late).as("late orders").isEmpty();
        return expected;
    }

    /** The committed rows by customer and window start; a second row of the same window fails here. */
    private Map<String, Window> committedWindows() throws IOException {
        Map<String, Window> windows = new HashMap<>();
        Path output = dir.resolve("out");
        if (!Files.isDirectory(output)) {
            return windows;
        }
        try (Stream<Path> files = Files.list(output)) {
            for (Path file : files.filter(f -> !f.getFileName().toString().startsWith(".")).sorted().toList()) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    JsonNode row = JSON.readTree(line);
                    List<String> names = new ArrayList<>();
                    row.fieldNames().forEachRemaining(names::add);
                    assertThat(names).containsExactly("window_start", "window_end", "customer", "orders", "total",
                            "biggest", "first_order");
                    String window = row.get("customer").asText() + "@" + Instant.parse(row.get("window_start").asText());
                    Window previous = windows.put(window, new Window(Instant.parse(row.get("window_end").asText()),
                            row.get("orders").asLong(), new BigDecimal(row.get("total").asText()).setScale(2),
                            new BigDecimal(row.get("biggest").asText()).setScale(2), row.get("first_order").asLong()));
                    assertThat(previous).as("window %s twice", window).isNull();
                }
            }
        }
        return windows;
    }
}
