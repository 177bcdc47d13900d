package dev.onceflow.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.connector.datagen.DatagenSourceFactory;
import dev.onceflow.connector.datagen.RowGenerator;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.FormatFactory;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job file that declares a schema gets datagen rows of it: run through the command line into
 * JSON lines, the committed rows are exactly the generator's rows of sequence numbers 0..n-1, each
 * once, and the sequence field that runs out ends the job.
 */
class DatagenSchemaJobTest {

    @TempDir
    Path dir;

    private static final int ROWS = 60;

    /** The job file's schema, as the job file declares it. */
    private static final Schema SCHEMA = Schema.of(List.of(
            Field.of("order_id", DataType.LONG.notNull()),
            Field.of("customer", DataType.STRING.notNull()),
            Field.of("amount", DataType.decimal(10, 2).notNull()),
            Field.of("quantity", DataType.INT),
            Field.of("discount", DataType.DOUBLE),
            Field.of("express", DataType.BOOLEAN),
            Field.of("note", DataType.STRING),
            Field.of("day", DataType.DATE),
            Field.of("slot", DataType.TIME),
            Field.of("placed", DataType.TIMESTAMP_TZ),
            Field.of("local", DataType.TIMESTAMP),
            Field.of("signature", DataType.BYTES),
            Field.of("tags", DataType.array(DataType.STRING))), List.of("order_id"));

    /** The job file's source options, in the order it lists them. */
    private static final Map<String, String> OPTIONS = new LinkedHashMap<>();

    static {
        OPTIONS.put("seed", "42");
        OPTIONS.put("fields.order_id.kind", "sequence");
        OPTIONS.put("fields.order_id.start", "1");
        OPTIONS.put("fields.order_id.end", String.valueOf(ROWS));
        OPTIONS.put("fields.customer.values", "alice, bob, carol");
        OPTIONS.put("fields.amount.min", "0.50");
        OPTIONS.put("fields.amount.max", "250");
        OPTIONS.put("fields.quantity.min", "1");
        OPTIONS.put("fields.quantity.max", "9");
        OPTIONS.put("fields.discount.max", "0.5");
        OPTIONS.put("fields.note.length", "12");
        OPTIONS.put("fields.note.null-rate", "0.3");
        OPTIONS.put("fields.day.min", "'2026-12-01'");
        OPTIONS.put("fields.slot.min", "'08:00:00'");
        OPTIONS.put("fields.placed.min", "'2026-12-01T00:00:00Z'");
        OPTIONS.put("fields.placed.max", "'2026-12-31T23:59:59Z'");
        OPTIONS.put("fields.signature.length", "4");
        OPTIONS.put("fields.tags.length", "2");
    }

    private String jobFile() {
        StringBuilder options = new StringBuilder();
        OPTIONS.forEach((key, value) -> options.append("    ").append(key).append(": ").append(value).append('\n'));
        StringBuilder fields = new StringBuilder();
        for (Field field : SCHEMA.fields()) {
            fields.append("      ").append(field.name()).append(": '").append(field.type()).append("'\n");
        }
        return """
                name: datagen-schema
                parallelism: 2
                source:
                  type: datagen
                  options:
                %s  schema:
                    fields:
                %s    primary-key: [order_id]
                sink:
                  type: filesystem
                  options:
                    path: %s
                  format: json
                checkpoints:
                  interval: 100ms
                  mode: exactly-once
                  dir: %s
                """.formatted(options, fields, dir.resolve("out"), dir.resolve("checkpoints"));
    }

    @Test
    void theCommittedRowsAreExactlyTheGeneratorsRowsOfEachSequenceNumberOnce() throws Exception {
        JobFiles.Run run = JobFiles.run(JobFiles.write(dir, "job.yaml", jobFile()));

        assertThat(run.status()).as(run.err()).isZero();
        List<Row> expected = new ArrayList<>();
        RowGenerator generator = generator();
        for (long s = 0; s < ROWS; s++) {
            expected.add(generator.rowAt(s));
        }
        assertThat(committedRows()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(expected).extracting(r -> r.get("note")).as("the null rate shows").containsNull();
    }

    /** The generator of the job file's options, as the factory validates them (quotes are YAML's). */
    private static RowGenerator generator() {
        Map<String, String> raw = new LinkedHashMap<>();
        OPTIONS.forEach((key, value) -> raw.put(key, value.replace("'", "")));
        String owner = "source 'datagen'";
        OptionValues options = OptionValues.validate(owner, raw, new DatagenSourceFactory().options(SCHEMA));
        return RowGenerator.of(SCHEMA, options, 42, owner);
    }

    private List<Row> committedRows() throws Exception {
        FormatFactory json = Connectors.discover(null).format("json");
        RowDecoder decoder = new Format(json, OptionValues.validate("json", Map.of(), json.options()))
                .createDecoder(SCHEMA);
        List<Row> rows = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir.resolve("out"))) {
            for (Path part : files.filter(f -> !f.getFileName().toString().startsWith(".")).sorted().toList()) {
                for (String line : Files.readAllLines(part, StandardCharsets.UTF_8)) {
                    rows.add(decoder.decode(line.getBytes(StandardCharsets.UTF_8)));
                }
            }
        }
        return rows;
    }
}
