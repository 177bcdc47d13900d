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
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code examples/orders.yaml} with broken lines among its orders and {@code on-error: dead-letter}:
 * every good order reaches the output once, and every broken line reaches the dead-letter sink
 * once, whole, with its place and the reason, also across a crash (rule SRC-6).
 */
@Timeout(300)
class DeadLetterJobTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path EXAMPLE = Path.of("orders.yaml");
    private static final Path DATA = Path.of("data", "orders");
    private static final String DEAD_LETTER_SOURCE = """
            source:
              type: file
              on-error: dead-letter
              dead-letter:
                type: filesystem
                options:
                  path: onceflow-data/orders/dead-letters
            """;

    @TempDir
    Path dir;

    /** A broken line as the test wrote it: its file, byte offset and bytes. */
    private record Broken(String file, long offset, byte[] bytes) {
    }

    private final Map<String, Broken> broken = new HashMap<>();
    private final Set<Long> goodIds = new HashSet<>();

    @Test
    void everyBrokenLineGoesToTheDeadLettersOnceAndTheJobGoesOn() throws Exception {
        Path job = layOut("");
        JobProcess run = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("run.log"));
        assertThat(run.await(3)).as("log:\n%s", run.tail()).isZero();

        check();
        String log = Files.readString(dir.resolve("run.log"));
        assertThat(log).contains(", sent 50 records it could not read to the dead letters.");
        assertThat(log.split("it goes to the dead letters", -1)).as("one warning per subtask, not one per record")
                .hasSizeBetween(2, 3);
    }

    @Test
    void aCrashBeforeACommitAndAResumeGiveEachDeadLetterOnce() throws Exception {
        Path job = layOut("  - {type: throttle, options: {rows-per-second: 500}}\n");
        Files.writeString(job, Files.readString(job).replace("interval: 500ms", "interval: 200ms"));
        JobProcess crashed = JobProcess.start(job, "latest",
                JobProcess.Faults.haltAt(FaultPoints.SINK_BEFORE_COMMIT + "@4"), dir.resolve("crash.log"));
        assertThat(crashed.await(3)).as("halted at the fault point; log:\n%s", crashed.tail()).isEqualTo(86);
        assertThat(committed("dead-letters")).as("the crash came before the last dead letter")
                .hasSizeLessThan(broken.size());

        JobProcess resumed = JobProcess.start(job, "latest", JobProcess.Faults.NONE, dir.resolve("resume.log"));
        assertThat(resumed.await(3)).as("log:\n%s", resumed.tail()).isZero();

        check();
    }

    /**
     * The example and its data laid out as in the repository, one line in 40 broken in one of
     * three ways: not JSON, a decimal with too many digits, a required field missing.
     */
    private Path layOut(String extraSteps) throws IOException {
        Path data = Files.createDirectories(dir.resolve("examples").resolve("data").resolve("orders"));
        try (Stream<Path> files = Files.list(DATA)) {
            for (Path file : files.sorted().toList()) {
                List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                StringBuilder out = new StringBuilder();
                long offset = 0;
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i);
                    if (i % 40 == 7) {
                        line = switch (i / 40 % 3) {
                            case 0 -> line.substring(0, line.length() / 2);
                            case 1 -> line.replaceFirst("\"amount\": [0-9.]+", "\"amount\": 12.345");
                            default -> line.replaceFirst("\"customer\": \"[^\"]*\", ", "");
                        };
                        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
                        broken.put(file.getFileName() + "@" + offset, new Broken(file.getFileName().toString(), offset,
                                bytes));
                    } else {
                        JsonNode order = JSON.readTree(line);
                        if (new BigDecimal(order.get("amount").asText()).compareTo(BigDecimal.valueOf(50)) >= 0) {
                            goodIds.add(order.get("order_id").asLong());
                        }
                    }
                    out.append(line).append('\n');
                    offset += line.getBytes(StandardCharsets.UTF_8).length + 1;
                }
                Files.writeString(data.resolve(file.getFileName()), out, StandardCharsets.UTF_8);
            }
        }
        assertThat(broken).hasSize(50);
        String yaml = Files.readString(EXAMPLE).replace("source:\n  type: file\n", DEAD_LETTER_SOURCE);
        if (!extraSteps.isEmpty()) {
            yaml = yaml.replace("steps:\n", "steps:\n" + extraSteps);
        }
        Path job = dir.resolve("orders.yaml");
        Files.writeString(job, yaml);
        return job;
    }

    private void check() throws IOException {
        Map<Long, Integer> seen = new TreeMap<>();
        Map<String, List<Long>> counts = new TreeMap<>();
        for (String line : committed("output")) {
            JsonNode row = JSON.readTree(line);
            seen.merge(row.get("order_id").asLong(), 1, Integer::sum);
            counts.computeIfAbsent(row.get("customer").asText(), c -> new ArrayList<>())
                    .add(row.get("customer_orders").asLong());
        }
        assertThat(seen.keySet()).as("every good order of 50 or more").isEqualTo(new java.util.TreeSet<>(goodIds));
        assertThat(seen.values()).as("each once").containsOnly(1);
        counts.forEach((customer, values) -> assertThat(values.stream().sorted().toList()).as("counts of %s", customer)
                .isEqualTo(java.util.stream.LongStream.rangeClosed(1, values.size()).boxed().toList()));

        Map<String, JsonNode> letters = new HashMap<>();
        for (String line : committed("dead-letters")) {
            JsonNode letter = JSON.readTree(line);
            String position = letter.get("position").asText();
            Broken expected = broken.values().stream()
                    .filter(b -> position.startsWith("byte offset " + b.offset() + " of file ")
                            && position.endsWith("/" + b.file() + " (format json)"))
                    .findFirst().orElseThrow(() -> new AssertionError("a dead letter for no broken line: " + position));
            assertThat(letters.put(expected.file() + "@" + expected.offset(), letter)).as("%s twice", position).isNull();
            assertThat(letter.get("source").asText()).isEqualTo("source");
            assertThat(Base64.getDecoder().decode(letter.get("record").asText())).as("bytes of %s", position)
                    .isEqualTo(expected.bytes());
            assertThat(letter.get("reason").asText()).as("reason of %s", position).isNotBlank();
        }
        assertThat(letters.keySet()).as("every broken line once").isEqualTo(broken.keySet());
        assertThat(letters.values()).extracting(l -> l.get("reason").asText())
                .anyMatch(r -> r.contains("field 'amount': 12.345 has more than 2 digits after the point"))
                .anyMatch(r -> r.contains("customer"))
                .noneMatch(r -> r.contains("Frances") || r.contains("sku-"));
    }

    private List<String> committed(String name) throws IOException {
        return CommittedFiles.lines(dir.resolve("onceflow-data/orders").resolve(name));
    }
}
