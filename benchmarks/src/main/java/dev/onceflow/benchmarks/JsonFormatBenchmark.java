package dev.onceflow.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceflow.format.json.JsonFormatFactory;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Decode + encode throughput of the {@code json} format against a plain Jackson loop over the same
 * records, in one JVM and one thread, measured in interleaved rounds (see {@link InterleavedRounds}).
 *
 * <ul>
 *   <li><b>jackson</b>: what a plain program does without a schema: {@code ObjectMapper.readTree}
 *       of each record's bytes and {@code writeValueAsBytes} of the tree.</li>
 *   <li><b>json</b>: the format: {@code RowDecoder.decode} into a row of the declared schema
 *       (every value checked against its type) and {@code RowEncoder.encode} of the row.</li>
 * </ul>
 *
 * Records: orders as {@code examples/orders.yaml} declares them (a long id, strings, a timestamp
 * with zone, a decimal, a nullable string and an array of 1 to 4 nested rows), generated here; every
 * member of a record is a field, so both loops write everything they read.
 * Each run decodes and encodes every record once; a checksum of the output lengths keeps the JIT
 * from dropping the work. The target: json >= 0.8 x jackson.
 */
public final class JsonFormatBenchmark {

    private static final String USAGE = "records=<n> rounds=<n> passes=<n>";

    private enum Config {
        JACKSON("jackson"), JSON("json");

        final String shortName;

        Config(String shortName) {
            this.shortName = shortName;
        }
    }

    static final Schema ORDERS = Schema.of(List.of(
            Field.of("order_id", DataType.LONG.notNull()),
            Field.of("customer", DataType.STRING.notNull()),
            Field.of("placed_at", DataType.TIMESTAMP_TZ.notNull()),
            Field.of("amount", DataType.decimal(10, 2).notNull()),
            Field.of("currency", DataType.STRING),
            Field.of("note", DataType.STRING),
            Field.of("items", DataType.parse(
                    "array<row<sku string not null, qty int not null, price decimal(10, 2) not null>>"))),
            List.of("order_id"));

    private JsonFormatBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> settings = BenchmarkArgs.parse("JsonFormatBenchmark", args,
                List.of("records", "rounds", "passes"), USAGE);
        int records = Integer.parseInt(settings.getOrDefault("records", "100000"));
        int rounds = Integer.parseInt(settings.getOrDefault("rounds", "5"));
        int passes = Integer.parseInt(settings.getOrDefault("passes", "20"));
        byte[][] input = records(records);
        System.out.printf(Locale.ROOT, "JsonFormatBenchmark: %,d order records (%,d bytes in all), %d passes per run, "
                + "%d rounds, Java %s%n", records, java.util.Arrays.stream(input).mapToLong(b -> b.length).sum(), passes,
                rounds, System.getProperty("java.version"));

        ObjectMapper mapper = new ObjectMapper();
        JsonFormatFactory factory = new JsonFormatFactory();
        OptionValues options = OptionValues.validate("format 'json'", Map.of(), factory.options());
        RowDecoder decoder = factory.createDecoder(ORDERS, options);
        RowEncoder encoder = factory.createEncoder(ORDERS, options);

        InterleavedRounds<Config> measure = new InterleavedRounds<>(List.of(Config.JACKSON, Config.JSON),
                c -> c.shortName, "records");
        Map<Config, List<Double>> results = measure.run(rounds, config -> {
            long checksum = 0;
            long start = System.nanoTime();
            for (int pass = 0; pass < passes; pass++) {
                for (byte[] record : input) {
                    if (config == Config.JACKSON) {
                        JsonNode tree = mapper.readTree(record);
                        checksum += mapper.writeValueAsBytes(tree).length;
                    } else {
                        checksum += encoder.encode(decoder.decode(record)).length;
                    }
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            if (checksum <= 0) {
                throw new IllegalStateException("nothing was encoded");
            }
            return (double) records * passes / seconds;
        });
        System.out.println();
        System.out.print(measure.report(results, Config.JACKSON, Config.JSON, 0.8, "json decode+encode"));
    }

    /** Orders like the shipped example's, deterministic. */
    static byte[][] records(int count) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        Random random = new Random(20261206);
        String[] customers = {"Ada Lovelace", "Zoë Müller", "José Núñez", "Grace Hopper", "李雷", "Alan Kay"};
        byte[][] records = new byte[count][];
        for (int i = 0; i < count; i++) {
            StringBuilder items = new StringBuilder("[");
            int n = 1 + random.nextInt(4);
            BigDecimal amount = BigDecimal.ZERO;
            for (int j = 0; j < n; j++) {
                BigDecimal price = BigDecimal.valueOf(99 + random.nextInt(19_900), 2);
                int qty = 1 + random.nextInt(5);
                amount = amount.add(price.multiply(BigDecimal.valueOf(qty)));
                items.append(j == 0 ? "" : ", ").append("{\"sku\": \"sku-").append(random.nextInt(40))
                        .append("\", \"qty\": ").append(qty).append(", \"price\": \"").append(price).append("\"}");
            }
            items.append(']');
            String note = random.nextInt(4) == 0 ? "\"leave at the door, \\\"fragile\\\"\"" : "null";
            String json = "{\"order_id\": " + i + ", \"customer\": " + mapper.writeValueAsString(customers[i % customers.length])
                    + ", \"placed_at\": \"2026-11-01T00:" + String.format(Locale.ROOT, "%02d:%02d.%03dZ", i / 60 % 60,
                    i % 60, i % 1000) + "\", \"amount\": " + amount + ", \"currency\": \"EUR\", \"items\": " + items
                    + ", \"note\": " + note + "}";
            records[i] = json.getBytes(StandardCharsets.UTF_8);
        }
        return records;
    }
}
