package dev.onceflow.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.datagen.EventGenerator;
import dev.onceflow.connector.elasticsearch.ElasticsearchSinkFactory;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.cli.CountEventsByKey;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.execution.JobClient;
import dev.onceflow.runtime.execution.JobResult;
import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.sink.Sink;
import dev.onceflow.testing.elasticsearch.ElasticsearchNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;

/**
 * Throughput of {@code datagen -> keyBy(key).process(CountByKey) -> elasticsearch sink} into a
 * real Elasticsearch node with 1 s checkpoints, in each sink mode, against a plain program that
 * bulk-indexes the same documents (same ids, keys, payloads, counts) with the same client, in the
 * same run.
 *
 * <p>The node is started by the benchmark from the distribution on Maven Central (no installation
 * needed). Every run writes into a fresh index that must hold exactly {@code rows} documents
 * afterwards, or the benchmark fails.
 *
 * <p>Settings, as system properties or {@code name=value} arguments: {@code rows} (default
 * 500,000), {@code rounds} (default 3), {@code configs} (default {@code raw,idem,wal}).
 */
public final class ElasticsearchBenchmark {

    static final int PARALLELISM = 2;
    static final int KEYS = 1000;
    static final int PAYLOAD_SIZE = 16;
    /** The target: the sink at 1 s checkpoints keeps at least 0.9 of the plain program's throughput. */
    static final double TARGET_RATIO = 0.9;
    /** Documents per bulk request of the plain program: the sink's default {@code bulk.max-actions}. */
    private static final int BULK_ACTIONS = 1000;
    /**
     * Threads of the plain program, each with one synchronous request in flight: as many requests
     * as the job keeps in flight (parallelism 2 x the sink's default {@code bulk.concurrency} 2),
     * so the baseline loads the node as hard as the sink can.
     */
    private static final int RAW_THREADS = PARALLELISM * 2;

    enum Config {
        RAW("raw", "plain bulk program, 4 threads", null),
        IDEMPOTENT("idem", "idempotent", "idempotent"),
        WRITE_AHEAD("wal", "write-ahead", "write-ahead");

        final String shortName;
        final String label;
        final String mode;

        Config(String shortName, String label, String mode) {
            this.shortName = shortName;
            this.label = label;
            this.mode = mode;
        }
    }

    /** The plain program's document: the same JSON fields, in the same order, as the sink writes. */
    record Document(String id, String key, String payload, long count) {
    }

    private final long rows;
    private final ElasticsearchNode node;
    private final ElasticsearchClient client;
    private final Path checkpointRoot;
    private int runCounter;

    ElasticsearchBenchmark(long rows, ElasticsearchNode node, ElasticsearchClient client, Path checkpointRoot) {
        this.rows = rows;
        this.node = node;
        this.client = client;
        this.checkpointRoot = checkpointRoot;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> values = BenchmarkArgs.parse("ElasticsearchBenchmark", args,
                List.of("rows", "rounds", "configs"), "rows=<n>, rounds=<n>, configs=<raw,idem,wal>");
        long rows = Long.parseLong(values.getOrDefault("rows", "500000").replace("_", ""));
        int rounds = Integer.parseInt(values.getOrDefault("rounds", "3"));
        List<Config> configs = BenchmarkArgs.configs(values.getOrDefault("configs", "raw,idem,wal"), Config.values(),
                c -> c.shortName);
        if (rows < 1 || rounds < 1) {
            System.err.println("ElasticsearchBenchmark: rows and rounds must be >= 1");
            System.exit(2);
        }
        Path root = Files.createTempDirectory("onceflow-es-benchmark-");
        System.out.println("starting an Elasticsearch node...");
        try (ElasticsearchNode node = ElasticsearchNode.start()) {
            ElasticsearchClient client = new ElasticsearchClient(new RestClientTransport(
                    RestClient.builder(new HttpHost(node.host(), node.port(), "http")).build(),
                    new JacksonJsonpMapper()));
            try {
                ElasticsearchBenchmark benchmark = new ElasticsearchBenchmark(rows, node, client, root);
                System.out.printf(Locale.ROOT, "Onceflow Elasticsearch benchmark: datagen(keys=%d, payload=%d, "
                        + "parallelism %d) -> keyBy(key).process(CountByKey) -> elasticsearch sink, checkpoints every "
                        + "1 s, into one local node; baseline: a plain program bulk-indexing the same documents with "
                        + "the same client%n", KEYS, PAYLOAD_SIZE, PARALLELISM);
                System.out.printf(Locale.ROOT, "documents per run %,d, rounds %d (after 1 warm-up round); Java %s on "
                        + "%d processors%n", rows, rounds, System.getProperty("java.version"),
                        Runtime.getRuntime().availableProcessors());
                InterleavedRounds<Config> interleaved = new InterleavedRounds<>(configs, c -> c.label, "documents");
                Map<Config, List<Double>> results = interleaved.run(rounds, benchmark::runOnce);
                System.out.println();
                System.out.print(interleaved.report(results, Config.RAW, Config.IDEMPOTENT, TARGET_RATIO,
                        "idempotent at 1 s"));
                System.out.print(interleaved.report(results, Config.RAW, Config.WRITE_AHEAD, TARGET_RATIO,
                        "write-ahead at 1 s").lines().filter(l -> l.startsWith("Target")).findFirst()
                        .map(l -> l + "\n").orElse(""));
            } finally {
                client._transport().close();
            }
        } finally {
            EndToEndBenchmark.deleteRecursively(root);
        }
    }

    /** One run into a fresh index; returns documents per second, after checking the index holds exactly the rows. */
    double runOnce(Config config) throws Exception {
        String index = "bench-" + config.shortName + "-" + (++runCounter);
        client.indices().create(c -> c.index(index).settings(s -> s.numberOfReplicas("0")));
        System.gc();
        long start = System.nanoTime();
        if (config == Config.RAW) {
            rawBulk(index);
        } else {
            runJob(config, index);
        }
        long nanos = System.nanoTime() - start;
        client.indices().refresh(r -> r.index(index));
        long count = client.count(c -> c.index(index)).count();
        if (count != rows) {
            throw new IllegalStateException(config.label + " left " + count + " documents in " + index
                    + "; expected exactly " + rows);
        }
        client.indices().delete(d -> d.index(index));
        return rows * 1e9 / nanos;
    }

    /**
     * The baseline: what a hand-written loader does, {@link #RAW_THREADS} threads each sending
     * synchronous bulk requests of its share of the documents.
     */
    private void rawBulk(String index) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(RAW_THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < RAW_THREADS; t++) {
                int thread = t;
                done.add(threads.submit(() -> {
                    EventGenerator generator = new EventGenerator(KEYS, PAYLOAD_SIZE);
                    List<BulkOperation> operations = new ArrayList<>(BULK_ACTIONS);
                    for (long sequence = thread; sequence < rows; sequence += RAW_THREADS) {
                        Event event = generator.eventAt(sequence);
                        Document document = new Document(event.id(), event.key(), event.payload(),
                                sequence / KEYS + 1);
                        operations.add(BulkOperation.of(b -> b.index(i -> i.index(index).id(event.id())
                                .document(document))));
                        if (operations.size() == BULK_ACTIONS || sequence + RAW_THREADS >= rows) {
                            BulkResponse response = client.bulk(b -> b.operations(operations));
                            if (response.errors()) {
                                throw new IllegalStateException("raw bulk request failed: " + response.items().stream()
                                        .filter(i -> i.error() != null).findFirst().map(i -> i.error().reason())
                                        .orElse("?"));
                            }
                            operations.clear();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private void runJob(Config config, String index) throws Exception {
        ElasticsearchSinkFactory factory = new ElasticsearchSinkFactory();
        Map<String, String> options = new LinkedHashMap<>();
        options.put("hosts", node.httpUri().toString());
        options.put("index", index);
        options.put("mode", config.mode);
        options.put("committer-index", index + "-checkpoints");
        @SuppressWarnings("unchecked")
        Sink<Event> sink = (Sink<Event>) factory.createSink(OptionValues.validate("benchmark", options,
                factory.options()));
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(PARALLELISM)
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(Duration.ofSeconds(1))
                        .withDirectory(checkpointRoot));
        env.fromSource(DatagenSource.builder().rows(rows).keys(KEYS).payloadSize(PAYLOAD_SIZE).rowsPerSecond(0).build(),
                        "datagen").uid("datagen")
                .keyBy(Event::key, Serializers.STRING)
                .process(CountEventsByKey::new).uid("count-by-key")
                .sinkTo(sink).uid("elasticsearch");
        JobClient job = env.executeAsync("elasticsearch-" + index);
        JobResult result = job.result().get();
        if (result.status() != JobResult.Status.FINISHED || result.restarts() != 0) {
            throw new IllegalStateException("benchmark job into " + index + " ended " + result.status() + " after "
                    + result.restarts() + " restarts; the throughput would be meaningless");
        }
        EndToEndBenchmark.deleteRecursively(job.jobDirectory().toPath());
        if (config == Config.WRITE_AHEAD) {
            client.indices().delete(d -> d.index(index + "-checkpoints"));
        }
    }
}
