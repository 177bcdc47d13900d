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
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code examples/daily-revenue.yaml} on its shipped data: one row per currency and day of
 * {@code placed_at} with the day's order count, revenue to the cent and biggest order, computed
 * here from the input files; also when the job halts before a commit and resumes.
 */
@Timeout(300)
class DailyRevenueJobTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** What one day of one currency adds up to. */
    private record Day(Instant end, long orders, BigDecimal revenue, BigDecimal biggest) {
    }

    @Test
    void theExampleGivesEachDayOnceWithItsTotals() throws Exception {
        Path job = ShippedExample.layOut(dir, "daily-revenue.yaml", "");
        JobProcess run = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("run.log"));
        assertThat(run.await(3)).as("log:\n%s", run.tail()).isZero();

        assertThat(committedDays()).isEqualTo(expectedDays());
        assertThat(Files.readString(dir.resolve("run.log"))).doesNotContain("late record");
    }

    @Test
    void aCrashBeforeACommitAndAResumeGiveEachDayOnce() throws Exception {
        // Slow enough that days close, and are committed, while the files are still being read.
        Path job = ShippedExample.layOut(dir, "daily-revenue.yaml", "  - {type: throttle, options: {rows-per-second: 200}}\n");
        Files.writeString(job, Files.readString(job).replace("interval: 500ms", "interval: 200ms"));
        JobProcess crashed = JobProcess.start(job, "latest",
                JobProcess.Faults.haltAt(FaultPoints.SINK_BEFORE_COMMIT + "@8"), dir.resolve("crash.log"));
        assertThat(crashed.await(3)).as("halted at the fault point; log:\n%s", crashed.tail())
                .isEqualTo(FaultPoints.HALT_EXIT_CODE);
        Map<String, Day> expected = expectedDays();
        assertThat(committedDays()).as("the crash came mid-run, after days were committed")
                .isNotEmpty().hasSizeLessThan(expected.size());

        JobProcess resumed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("resume.log"));
        assertThat(resumed.await(3)).as("log:\n%s", resumed.tail()).isZero();

        assertThat(committedDays()).isEqualTo(expected);
    }

    /** Per currency and day (UTC, as windows of 1d from the epoch are), what the shipped orders add up to. */
    private Map<String, Day> expectedDays() throws IOException {
        Map<String, Day> expected = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir.resolve("examples").resolve(ShippedExample.ORDERS))) {
            for (Path file : files.toList()) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    JsonNode order = JSON.readTree(line);
                    Instant day = Instant.parse(order.get("placed_at").asText()).truncatedTo(ChronoUnit.DAYS);
                    BigDecimal amount = new BigDecimal(order.get("amount").asText()).setScale(2);
                    expected.merge(order.get("currency").asText() + "@" + day,
                            new Day(day.plus(Duration.ofDays(1)), 1, amount, amount),
                            (a, b) -> new Day(a.end(), a.orders() + b.orders(), a.revenue().add(b.revenue()),
                                    a.biggest().max(b.biggest())));
                }
            }
        }
        assertThat(expected).as("the shipped orders span two weeks").hasSizeGreaterThan(10);
        return expected;
    }

    /** The committed rows by currency and day; a second row of the same day fails here. */
    private Map<String, Day> committedDays() throws IOException {
        Map<String, Day> days = new TreeMap<>();
        for (String line : CommittedFiles.lines(dir.resolve("onceflow-data/daily-revenue/output"))) {
            JsonNode row = JSON.readTree(line);
            List<String> names = new ArrayList<>();
            row.fieldNames().forEachRemaining(names::add);
            assertThat(names).containsExactly("window_start", "window_end", "currency", "orders", "revenue", "biggest");
            String day = row.get("currency").asText() + "@" + Instant.parse(row.get("window_start").asText());
            Day previous = days.put(day, new Day(Instant.parse(row.get("window_end").asText()), row.get("orders").asLong(),
                    new BigDecimal(row.get("revenue").asText()).setScale(2),
                    new BigDecimal(row.get("biggest").asText()).setScale(2)));
            assertThat(previous).as("day %s twice", day).isNull();
        }
        return days;
    }
}
