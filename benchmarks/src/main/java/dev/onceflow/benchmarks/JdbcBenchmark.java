package dev.onceflow.benchmarks;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.datagen.EventGenerator;
import dev.onceflow.connector.jdbc.JdbcMode;
import dev.onceflow.connector.jdbc.JdbcSink;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.cli.CountEventsByKey;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.execution.JobClient;
import dev.onceflow.runtime.execution.JobResult;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.testing.postgres.EmbeddedPostgresServer;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/**
 * Throughput of {@code datagen -> keyBy(key).process(CountByKey) -> jdbc sink} into a real
 * PostgreSQL with 1 s checkpoints, in each sink mode, against a plain JDBC program that COPYs the
 * same rows (same ids, keys, payloads) into the same kind of table, in the same run.
 *
 * <p>The server is an embedded PostgreSQL started by the benchmark (no installation needed).
 * Every run writes into an empty table and must leave exactly {@code rows} rows, or the benchmark
 * fails. Configurations run interleaved after a warm-up round; medians summarize the rounds.
 *
 * <p>Settings, as system properties or {@code name=value} arguments: {@code rows} (default
 * 2,000,000), {@code rounds} (default 3), {@code configs} (default {@code raw,eo,wal,idem}).
 */
public final class JdbcBenchmark {

    static final int PARALLELISM = 2;
    static final int KEYS = 1000;
    static final int PAYLOAD_SIZE = 16;
    /** The target: exactly-once at 1 s checkpoints keeps at least 0.8 of raw COPY's throughput. */
    static final double TARGET_RATIO = 0.8;
    /** Rows per COPY of the raw program: large enough that its per-statement cost does not matter. */
    private static final int RAW_COPY_ROWS = 50_000;

    /** The configurations compared; the first is the baseline of every ratio. */
    enum Config {
        RAW("raw", "raw COPY, 1 connection", null),
        EXACTLY_ONCE("eo", "exactly-once (COPY)", JdbcMode.EXACTLY_ONCE),
        WRITE_AHEAD("wal", "write-ahead (COPY)", JdbcMode.WRITE_AHEAD),
        IDEMPOTENT("idem", "idempotent (upsert)", JdbcMode.IDEMPOTENT);

        final String shortName;
        final String label;
        final JdbcMode mode;

        Config(String shortName, String label, JdbcMode mode) {
            this.shortName = shortName;
            this.label = label;
            this.mode = mode;
        }
    }

    private final long rows;
    private final int rounds;
    private final List<Config> configs;
    private final EmbeddedPostgresServer postgres;
    private final Path checkpointRoot;
    private int runCounter;

    JdbcBenchmark(long rows, int rounds, List<Config> configs, EmbeddedPostgresServer postgres, Path checkpointRoot) {
        this.rows = rows;
        this.rounds = rounds;
        this.configs = configs;
        this.postgres = postgres;
        this.checkpointRoot = checkpointRoot;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> values = BenchmarkArgs.parse("JdbcBenchmark", args, List.of("rows", "rounds", "configs"),
                "rows=<n>, rounds=<n>, configs=<raw,eo,wal,idem>");
        long rows = Long.parseLong(values.getOrDefault("rows", "2000000").replace("_", ""));
        int rounds = Integer.parseInt(values.getOrDefault("rounds", "3"));
        List<Config> configs = BenchmarkArgs.configs(values.getOrDefault("configs", "raw,eo,wal,idem"), Config.values(),
                c -> c.shortName);
        if (rows < 1 || rounds < 1) {
            System.err.println("JdbcBenchmark: rows and rounds must be >= 1");
            System.exit(2);
        }
        Path root = Files.createTempDirectory("onceflow-jdbc-benchmark-");
        try (EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start(Map.of("max_prepared_transactions", "16"))) {
            JdbcBenchmark benchmark = new JdbcBenchmark(rows, rounds, configs, postgres, root);
            Map<Config, List<Double>> results = benchmark.runAll();
            System.out.println();
            System.out.print(benchmark.rounds().report(results, Config.RAW, Config.EXACTLY_ONCE, TARGET_RATIO,
                    "exactly-once at 1 s"));
        } finally {
            EndToEndBenchmark.deleteRecursively(root);
        }
    }

    Map<Config, List<Double>> runAll() throws Exception {
        System.out.printf(Locale.ROOT, "Onceflow JDBC benchmark: datagen(keys=%d, payload=%d, parallelism %d) -> "
                + "keyBy(key).process(CountByKey) -> jdbc sink, checkpoints every 1 s, into an embedded PostgreSQL; "
                + "baseline: a plain program COPYing the same rows%n", KEYS, PAYLOAD_SIZE, PARALLELISM);
        System.out.printf(Locale.ROOT, "rows per run %,d, rounds %d (after 1 warm-up round); Java %s on %d processors%n",
                rows, rounds, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
        return rounds().run(rounds, this::runOnce);
    }

    /** One run into a fresh table; returns rows per second, after checking the table holds exactly the rows. */
    double runOnce(Config config) throws Exception {
        String table = "bench_" + config.shortName + "_" + (++runCounter);
        System.gc();
        long start = System.nanoTime();
        if (config == Config.RAW) {
            rawCopy(table);
        } else {
            runJob(config, table);
        }
        long nanos = System.nanoTime() - start;
        verify(config, table);
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE " + table);
        }
        return rows * 1e9 / nanos;
    }

    /** The baseline: what a hand-written loader does with one connection, COPY and a commit at the end. */
    private void rawCopy(String table) throws Exception {
        EventGenerator generator = new EventGenerator(KEYS, PAYLOAD_SIZE);
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + table + " (id text PRIMARY KEY, key text, count bigint, payload text)");
            connection.setAutoCommit(false);
            CopyManager copy = connection.unwrap(PGConnection.class).getCopyAPI();
            StringBuilder text = new StringBuilder(RAW_COPY_ROWS * 40);
            for (long sequence = 0; sequence < rows; sequence++) {
                Event event = generator.eventAt(sequence);
                // The job's payloads and keys need no COPY escaping either; the count is the running count.
                text.append(event.id()).append('\t').append(event.key()).append('\t').append(sequence / KEYS + 1)
                        .append('\t').append(event.payload()).append('\n');
                if ((sequence + 1) % RAW_COPY_ROWS == 0 || sequence == rows - 1) {
                    copy.copyIn("COPY " + table + " (id, key, count, payload) FROM STDIN",
                            new ByteArrayInputStream(text.toString().getBytes(StandardCharsets.UTF_8)));
                    text.setLength(0);
                }
            }
            connection.commit();
        }
    }

    private void runJob(Config config, String table) throws Exception {
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(PARALLELISM)
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(Duration.ofSeconds(1))
                        .withDirectory(checkpointRoot));
        env.fromSource(DatagenSource.builder().rows(rows).keys(KEYS).payloadSize(PAYLOAD_SIZE).rowsPerSecond(0).build(),
                        "datagen").uid("datagen")
                .keyBy(Event::key, Serializers.STRING)
                .process(CountEventsByKey::new).uid("count-by-key")
                .sinkTo(JdbcSink.builder(url(), table).user("postgres").committerTable(table + "_checkpoints")
                        .build(config.mode)).uid("jdbc");
        JobClient client = env.executeAsync("jdbc-" + table);
        JobResult result = client.result().get();
        if (result.status() != JobResult.Status.FINISHED || result.restarts() != 0) {
            throw new IllegalStateException("benchmark job into " + table + " ended " + result.status() + " after "
                    + result.restarts() + " restarts; the throughput would be meaningless");
        }
        EndToEndBenchmark.deleteRecursively(client.jobDirectory().toPath());
    }

    private void verify(Config config, String table) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT count(*), count(DISTINCT id), "
                        + "coalesce(max(id::bigint), -1) FROM " + table)) {
            result.next();
            long count = result.getLong(1);
            long distinct = result.getLong(2);
            long maxId = result.getLong(3);
            if (count != rows || distinct != rows || maxId != rows - 1) {
                throw new IllegalStateException(config.label + " left " + count + " rows (" + distinct
                        + " distinct ids, highest " + maxId + ") in " + table + "; expected exactly ids 0.."
                        + (rows - 1));
            }
        }
    }

    private String url() {
        return postgres.url();
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), "postgres", "");
    }

    private InterleavedRounds<Config> rounds() {
        return new InterleavedRounds<>(configs, c -> c.label, "rows");
    }

}
