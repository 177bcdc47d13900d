package dev.onceflow.benchmarks;

import dev.onceflow.connector.jdbc.JdbcMode;
import dev.onceflow.connector.jdbc.JdbcSink;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.execution.JobClient;
import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import dev.onceflow.testing.postgres.EmbeddedPostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * #9 (c): Kafka → PostgreSQL exactly-once, {@code kafka source -> keyBy(key).process(count) ->
 * jdbc sink}, parallelism 2, checkpoints every second, on Onceflow's runtime with its JDBC sink in
 * {@code exactly-once} mode against Flink 2.3 with Flink's own {@code flink-connector-kafka} source
 * and {@code flink-connector-jdbc} exactly-once sink (XA transactions), in the same run, on one
 * embedded Kafka broker and one embedded PostgreSQL that the benchmark starts.
 *
 * <p>Flink's side runs in a child JVM ({@link FlinkKafkaJob}, which explains why); its MiniCluster
 * starts once and serves every run. Both sides are timed from the job's submission to its end.
 *
 * <p>Two measurements: <b>throughput</b>, a backfill of a pre-filled input topic into a fresh
 * table that must then hold exactly ids {@code 0..rows-1}, or the benchmark fails; and
 * <b>end-to-end latency</b>, input written at a fixed rate with its send time in the payload. The
 * server runs with {@code track_commit_timestamp = on}, so each row's latency is the commit time
 * of the transaction that made it visible ({@code pg_xact_commit_timestamp(xmin)}) minus its send
 * time: exact, with no reader polling the table.
 *
 * <p>Settings, as system properties or {@code name=value} arguments: {@code rows} (default
 * 1,000,000), {@code rounds} (default 3), {@code configs} (default {@code eo,flink}),
 * {@code latency-rate} (records per second, default 5,000), {@code latency-seconds} (default
 * {@value KafkaBenchmark#DEFAULT_LATENCY_SECONDS}).
 */
public final class KafkaPostgresBenchmark {

    static final int PARALLELISM = 2;

    /** The configurations compared. */
    enum Config {
        EXACTLY_ONCE("eo", "onceflow exactly-once"),
        FLINK("flink", "flink jdbc xa sink");

        final String shortName;
        final String label;

        Config(String shortName, String label) {
            this.shortName = shortName;
            this.label = label;
        }
    }

    private final EmbeddedKafkaBroker broker;
    private final KafkaBenchmark kafka;
    private final EmbeddedPostgresServer postgres;
    private final Path checkpointRoot;
    private FlinkKafkaJob.Child flink;
    private int runCounter;

    KafkaPostgresBenchmark(EmbeddedKafkaBroker broker, EmbeddedPostgresServer postgres, Path checkpointRoot) {
        this.broker = broker;
        this.kafka = new KafkaBenchmark(broker, checkpointRoot);
        this.postgres = postgres;
        this.checkpointRoot = checkpointRoot;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> values = BenchmarkArgs.parse("KafkaPostgresBenchmark", args, KafkaBenchmark.SETTINGS,
                "rows=<n>, rounds=<n>, configs=<eo,flink>, latency-rate=<records/s>, latency-seconds=<n>");
        KafkaBenchmark.Settings settings = KafkaBenchmark.Settings.of("KafkaPostgresBenchmark", values, 1_000_000, 5_000);
        long rows = settings.rows();
        int rounds = settings.rounds();
        int latencyRate = settings.latencyRate();
        int latencySeconds = settings.latencySeconds();
        List<Config> configs = BenchmarkArgs.configs(values.getOrDefault("configs", "eo,flink"), Config.values(),
                c -> c.shortName);
        Path root = Files.createTempDirectory("onceflow-kafka-postgres-benchmark-");
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start();
                EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start(
                        // Flink's XA sink and Onceflow's exactly-once mode both keep prepared transactions.
                        Map.of("max_prepared_transactions", "64", "track_commit_timestamp", "on"))) {
            KafkaPostgresBenchmark benchmark = new KafkaPostgresBenchmark(broker, postgres, root);
            System.out.printf(Locale.ROOT, "Onceflow Kafka -> PostgreSQL benchmark (#9 (c)): kafka(%d partitions) -> "
                    + "keyBy(key).process(count) -> jdbc sink, parallelism %d, checkpoints every 1 s, exactly-once; "
                    + "one embedded broker, one embedded PostgreSQL%n", KafkaBenchmark.PARTITIONS, PARALLELISM);
            System.out.printf(Locale.ROOT, "rows per run %,d, rounds %d (after 1 warm-up round); Java %s on %d "
                    + "processors%n", rows, rounds, System.getProperty("java.version"),
                    Runtime.getRuntime().availableProcessors());
            String input = benchmark.kafka.fillInput(rows);
            InterleavedRounds<Config> interleaved = new InterleavedRounds<>(configs, c -> c.label, "records");
            Map<Config, List<Double>> throughput;
            Map<Config, long[]> latency = new EnumMap<>(Config.class);
            try {
                throughput = interleaved.run(rounds, config -> benchmark.runOnce(config, input, rows));
                for (Config config : configs) {
                    latency.put(config, benchmark.latency(config, latencyRate, latencySeconds));
                }
            } finally {
                if (benchmark.flink != null) {
                    benchmark.flink.close();
                }
            }
            System.out.println();
            boolean both = throughput.containsKey(Config.FLINK) && throughput.containsKey(Config.EXACTLY_ONCE);
            System.out.print(interleaved.report(throughput, both ? Config.FLINK : configs.get(0), Config.EXACTLY_ONCE,
                    0, ""));
            System.out.println();
            for (Config config : configs) {
                long[] lat = latency.get(config);
                System.out.printf(Locale.ROOT, "latency at %,d records/s (input of the first %d s left out)  %-24s "
                        + "p50 %,6d ms  p99 %,6d ms  max %,6d ms%n", latencyRate,
                        KafkaBenchmark.LATENCY_WARM_UP_MILLIS / 1000, config.label, KafkaBenchmark.percentile(lat, 0.5),
                        KafkaBenchmark.percentile(lat, 0.99), lat[lat.length - 1]);
            }
            if (both) {
                double ratio = InterleavedRounds.pairedRatio(throughput, Config.FLINK, Config.EXACTLY_ONCE);
                long ours = KafkaBenchmark.percentile(latency.get(Config.EXACTLY_ONCE), 0.99);
                long theirs = KafkaBenchmark.percentile(latency.get(Config.FLINK), 0.99);
                System.out.printf(Locale.ROOT, "%nTarget #9 (c): Onceflow exactly-once >= 1x Flink's JDBC XA sink, "
                        + "with a lower p99 end-to-end latency: %s (paired ratio %.3f; p99 %d ms vs %d ms)%n",
                        ratio >= 1.0 && ours < theirs ? "MET" : "NOT MET", ratio, ours, theirs);
            }
        } finally {
            EndToEndBenchmark.deleteRecursively(root);
        }
    }

    /** One backfill into a fresh table; records per second, after checking the table. */
    double runOnce(Config config, String input, long rows) throws Exception {
        String table = "bench_" + config.shortName + "_" + (++runCounter);
        System.gc();
        long start = System.nanoTime();
        if (config == Config.FLINK) {
            createTable(table);
            KafkaBenchmark.printCheckpoints(config.label, flink().runBounded(input, table, url()));
        } else {
            KafkaBenchmark.printCheckpoints(config.label, KafkaBenchmark.awaitFinished(startJob(input, table, true), table));
        }
        long nanos = System.nanoTime() - start;
        verify(config, table, rows);
        execute("DROP TABLE " + table);
        return rows * 1e9 / nanos;
    }

    /**
     * Latency at {@code rate} records per second for {@code seconds}: the job runs unbounded, the
     * input is written with send times, and once the table holds every row, each row's commit
     * time minus its send time.
     *
     * @return latencies in milliseconds of the rows sent after the warm-up
     *     ({@link KafkaBenchmark#afterWarmUp}), sorted
     */
    long[] latency(Config config, int rate, int seconds) throws Exception {
        String input = "pg-lat-in-" + config.shortName;
        String table = "lat_" + config.shortName;
        broker.createTopic(input, KafkaBenchmark.PARTITIONS);
        int total = rate * seconds;
        JobClient client = null;
        if (config == Config.FLINK) {
            createTable(table);
            flink().startUnbounded(input, table, url());
        } else {
            client = startJob(input, table, false);
        }
        kafka.produceTimestamped(input, rate, total);
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        long count = 0;
        while ((count = count(table)) < total && System.nanoTime() < deadline) {
            Thread.sleep(100); // polling the table; no notification exists for committed rows
        }
        if (client != null) {
            client.cancel();
            client.result().get();
            EndToEndBenchmark.deleteRecursively(client.jobDirectory().toPath());
        } else {
            flink().cancel();
        }
        if (count != total) {
            throw new IllegalStateException(config.label + ": the table " + table + " holds " + count
                    + " rows after 2 minutes; expected " + total);
        }
        long[] latencies = new long[total];
        long[] sentAt = new long[total];
        int n = 0;
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT (extract(epoch FROM pg_xact_commit_timestamp(xmin)) "
                        + "* 1000)::bigint - payload::bigint, payload::bigint FROM " + table)) {
            while (result.next()) {
                latencies[n] = result.getLong(1);
                sentAt[n++] = result.getLong(2);
            }
        }
        return KafkaBenchmark.afterWarmUp(config.label, latencies, sentAt);
    }

    private JobClient startJob(String input, String table, boolean bounded) throws Exception {
        StreamEnvironment env = KafkaBenchmark.environment(checkpointRoot);
        KafkaBenchmark.countedFromKafka(env, broker, input, bounded)
                .sinkTo(JdbcSink.builder(url(), table).user("postgres").committerTable(table + "_checkpoints")
                        .build(JdbcMode.EXACTLY_ONCE)).uid("jdbc");
        return env.executeAsync("kafka-postgres-" + table);
    }

    private FlinkKafkaJob.Child flink() throws Exception {
        if (flink == null) {
            flink = new FlinkKafkaJob.Child(broker.bootstrapServers(), checkpointRoot.resolve("flink"));
        }
        return flink;
    }

    /** The table Onceflow's sink creates by itself, for Flink's sink, which does not. */
    private void createTable(String table) throws SQLException {
        execute("CREATE TABLE " + table + " (id text PRIMARY KEY, key text, count bigint, payload text)");
    }

    private void verify(Config config, String table, long rows) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT count(*), count(DISTINCT id), "
                        + "coalesce(max(id::bigint), -1) FROM " + table)) {
            result.next();
            if (result.getLong(1) != rows || result.getLong(2) != rows || result.getLong(3) != rows - 1) {
                throw new IllegalStateException(config.label + " left " + result.getLong(1) + " rows ("
                        + result.getLong(2) + " distinct ids, highest " + result.getLong(3) + ") in " + table
                        + "; expected exactly ids 0.." + (rows - 1));
            }
        }
    }

    private long count(String table) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT count(*) FROM " + table)) {
            result.next();
            return result.getLong(1);
        } catch (SQLException notYetCreated) {
            if ("42P01".equals(notYetCreated.getSQLState())) {
                return 0; // Onceflow's sink creates its table when the job starts
            }
            throw notYetCreated;
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private String url() {
        return postgres.url();
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), "postgres", "");
    }
}
