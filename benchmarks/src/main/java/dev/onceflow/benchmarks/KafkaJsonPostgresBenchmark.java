package dev.onceflow.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceflow.runtime.cli.Connectors;
import dev.onceflow.runtime.cli.JobFileLoader;
import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import dev.onceflow.testing.postgres.EmbeddedPostgresServer;
import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.postgresql.PGConnection;

/**
 * A topic of JSON orders into a PostgreSQL table with typed columns, exactly once, from a job
 * file, against the plain program a user would otherwise write: the same topic read by one
 * kafka-clients consumer per partition, each record decoded with Jackson's {@code readTree}, the
 * rows sent with {@code COPY} in batches of 1,000, each batch its own transaction. Neither side
 * keeps state; both use parallelism 2 and start from an empty table of the same shape.
 *
 * <p>Onceflow runs the job file {@link #jobFile} in this JVM through the CLI's loader: kafka
 * source, json format with a declared schema, jdbc sink in mode exactly-once (COPY into prepared
 * transactions), checkpoints every second, fields mapped to the table's own column names. After
 * each run the table must hold exactly the orders written, each once, with the same sum of
 * amounts, or the benchmark fails.
 *
 * <p>Settings, as system properties or {@code name=value} arguments: {@code rows} (default
 * 1,000,000), {@code rounds} (default 3).
 */
public final class KafkaJsonPostgresBenchmark {

    static final int PARALLELISM = 2;
    static final int PARTITIONS = 2;
    static final int BATCH = 1_000;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOPIC = "orders-json";

    enum Config {
        PLAIN("plain", "plain consumer + COPY"),
        ONCEFLOW("onceflow", "onceflow job file");

        final String shortName;
        final String label;

        Config(String shortName, String label) {
            this.shortName = shortName;
            this.label = label;
        }
    }

    private final EmbeddedKafkaBroker broker;
    private final EmbeddedPostgresServer postgres;
    private final Path root;
    private int runCounter;

    private KafkaJsonPostgresBenchmark(EmbeddedKafkaBroker broker, EmbeddedPostgresServer postgres, Path root) {
        this.broker = broker;
        this.postgres = postgres;
        this.root = root;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> values = BenchmarkArgs.parse("KafkaJsonPostgresBenchmark", args, List.of("rows", "rounds"),
                "rows=<n>, rounds=<n>");
        long rows = Long.parseLong(values.getOrDefault("rows", "1000000").replace("_", ""));
        int rounds = Integer.parseInt(values.getOrDefault("rounds", "3"));
        if (rows < 1 || rounds < 1) {
            System.err.println("KafkaJsonPostgresBenchmark: rows and rounds must be >= 1");
            System.exit(2);
        }
        Path root = Files.createTempDirectory("onceflow-kafka-json-postgres-benchmark-");
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start();
                EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start(Map.of("max_prepared_transactions", "16"))) {
            KafkaJsonPostgresBenchmark benchmark = new KafkaJsonPostgresBenchmark(broker, postgres, root);
            System.out.printf(Locale.ROOT, "Kafka (json) -> PostgreSQL (typed columns, COPY) benchmark: %d partitions, "
                    + "parallelism %d, one embedded broker, one embedded PostgreSQL%n", PARTITIONS, PARALLELISM);
            System.out.printf(Locale.ROOT, "rows per run %,d, rounds %d (after 1 warm-up round); Java %s on %d "
                    + "processors%n", rows, rounds, System.getProperty("java.version"),
                    Runtime.getRuntime().availableProcessors());
            BigDecimal total = benchmark.fill(rows);
            InterleavedRounds<Config> interleaved = new InterleavedRounds<>(List.of(Config.values()), c -> c.label,
                    "rows");
            Map<Config, List<Double>> throughput = interleaved.run(rounds, config -> benchmark.runOnce(config, rows, total));
            System.out.println();
            System.out.print(interleaved.report(throughput, Config.PLAIN, Config.ONCEFLOW, 0.8,
                    "onceflow exactly-once from a job file"));
        } finally {
            EndToEndBenchmark.deleteRecursively(root);
        }
    }

    /** Writes {@code rows} orders to the input topic, round robin over its partitions; returns their amounts' sum. */
    private BigDecimal fill(long rows) throws Exception {
        broker.createTopic(TOPIC, PARTITIONS);
        Map<String, Object> settings = new HashMap<>(broker.clientProperties());
        settings.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        settings.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        BigDecimal total = BigDecimal.ZERO;
        Instant start = Instant.parse("2026-12-06T08:00:00.123456Z");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings)) {
            for (long id = 0; id < rows; id++) {
                BigDecimal amount = BigDecimal.valueOf(id * 7919 % 1_000_000, 2);
                total = total.add(amount);
                String value = "{\"order_id\": " + id + ", \"customer\": \"customer " + id % 1_000
                        + "\", \"amount\": " + amount.toPlainString() + ", \"placed_at\": \"" + start.plusSeconds(id)
                        + "\", \"channel\": \"web\"}";
                producer.send(new ProducerRecord<>(TOPIC, (int) (id % PARTITIONS), null,
                        value.getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
        return total;
    }

    /** One backfill into a fresh table; rows per second, after checking the table. */
    private double runOnce(Config config, long rows, BigDecimal total) throws Exception {
        String table = "orders_" + config.shortName + "_" + (++runCounter);
        execute("CREATE TABLE " + table + " (order_no bigint PRIMARY KEY, customer_name text NOT NULL, "
                + "amount numeric(10, 2) NOT NULL, placed_at timestamptz NOT NULL)");
        System.gc();
        long start = System.nanoTime();
        if (config == Config.PLAIN) {
            plain(table, rows);
        } else {
            onceflow(table);
        }
        long nanos = System.nanoTime() - start;
        verify(config, table, rows, total);
        execute("DROP TABLE " + table);
        return rows * 1e9 / nanos;
    }

    private void onceflow(String table) throws Exception {
        Path file = root.resolve(table + ".yaml");
        Files.writeString(file, jobFile(table));
        JobFileLoader.LoadedJob job = new JobFileLoader(Connectors.discover(null)).load(file);
        KafkaBenchmark.printCheckpoints(Config.ONCEFLOW.label,
                KafkaBenchmark.awaitFinished(job.environment().executeAsync(job.spec().name()), table));
    }

    /** What a user writes: the topic's JSON fields by their types, and the table's own column names. */
    private String jobFile(String table) {
        return """
                name: %s
                parallelism: %d
                source:
                  type: kafka
                  options:
                    bootstrap-servers: '%s'
                    topics: %s
                    bounded: true
                  format: json
                  schema:
                    fields:
                      order_id: long not null
                      customer: string not null
                      amount: decimal(10, 2) not null
                      placed_at: timestamptz not null
                sink:
                  type: jdbc
                  options:
                    url: '%s'
                    user: postgres
                    table: %s
                    create-table: never
                    columns: order_id=order_no, customer=customer_name
                checkpoints:
                  interval: 1s
                  dir: '%s'
                """.formatted(table, PARALLELISM, broker.bootstrapServers(), TOPIC, postgres.url(), table,
                root.resolve("checkpoints"));
    }

    /** One thread per partition: poll, decode with Jackson, COPY every {@link #BATCH} rows in its own transaction. */
    private void plain(String table, long rows) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(PARTITIONS);
        try {
            List<Future<Long>> copied = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                int partition = p;
                copied.add(threads.submit(() -> copyPartition(table, partition)));
            }
            long sum = 0;
            for (Future<Long> future : copied) {
                sum += future.get();
            }
            if (sum != rows) {
                throw new IllegalStateException("the plain program copied " + sum + " rows, not " + rows);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private long copyPartition(String table, int partition) throws Exception {
        Map<String, Object> settings = new HashMap<>(broker.clientProperties());
        settings.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        settings.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        TopicPartition topicPartition = new TopicPartition(TOPIC, partition);
        long copied = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings);
                Connection connection = DriverManager.getConnection(postgres.url(), "postgres", "")) {
            consumer.assign(List.of(topicPartition));
            consumer.seekToBeginning(List.of(topicPartition));
            long end = consumer.endOffsets(List.of(topicPartition)).get(topicPartition);
            String copy = "COPY " + table + " (order_no, customer_name, amount, placed_at) FROM STDIN";
            StringBuilder batch = new StringBuilder();
            int inBatch = 0;
            while (consumer.position(topicPartition) < end) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    JsonNode order = JSON.readTree(record.value());
                    batch.append(order.get("order_id").asLong()).append('\t');
                    copyText(batch, order.get("customer").asText()).append('\t');
                    batch.append(order.get("amount").decimalValue().toPlainString()).append('\t');
                    copyText(batch, order.get("placed_at").asText()).append('\n');
                    if (++inBatch == BATCH) {
                        copied += send(connection, copy, batch, inBatch);
                        inBatch = 0;
                    }
                }
            }
            copied += send(connection, copy, batch, inBatch);
        }
        return copied;
    }

    private static long send(Connection connection, String copy, StringBuilder batch, int rows) throws Exception {
        if (rows == 0) {
            return 0;
        }
        connection.unwrap(PGConnection.class).getCopyAPI().copyIn(copy,
                new ByteArrayInputStream(batch.toString().getBytes(StandardCharsets.UTF_8)));
        batch.setLength(0);
        return rows;
    }

    private static StringBuilder copyText(StringBuilder out, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                default -> out.append(c);
            }
        }
        return out;
    }

    private void verify(Config config, String table, long rows, BigDecimal total) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT count(*), count(DISTINCT order_no), min(order_no), "
                        + "max(order_no), sum(amount) FROM " + table)) {
            result.next();
            boolean exact = result.getLong(1) == rows && result.getLong(2) == rows && result.getLong(3) == 0
                    && result.getLong(4) == rows - 1 && result.getBigDecimal(5).compareTo(total) == 0;
            if (!exact) {
                throw new IllegalStateException(config.label + ": table " + table + " holds " + result.getLong(1)
                        + " rows, " + result.getLong(2) + " distinct, ids " + result.getLong(3) + ".." + result.getLong(4)
                        + ", amounts summing to " + result.getBigDecimal(5) + "; expected each of 0.." + (rows - 1)
                        + " once, summing to " + total);
            }
        }
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(postgres.url(), "postgres", "");
    }

    private void execute(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
