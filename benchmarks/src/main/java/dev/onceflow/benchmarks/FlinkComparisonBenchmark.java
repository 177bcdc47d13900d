package dev.onceflow.benchmarks;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.connector.datagen.EventGenerator;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.cli.CountEventsByKey;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.execution.JobResult;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.serialization.Serializers;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Issue #9, benchmark (a): the same job on Onceflow's runtime and on Apache Flink, in one JVM,
 * interleaved rounds (see {@link InterleavedRounds}):
 *
 * <pre>
 * datagen (20 M events, 1,000 keys, 16-character payloads) -> keyBy(key) -> a running count per key
 *   in keyed state -> a discarding sink that counts what it receives
 * parallelism 2, EXACTLY_ONCE checkpoints every second to a local directory
 * </pre>
 *
 * <ul>
 * <li><b>onceflow</b>: {@link DatagenSource} -> {@link CountEventsByKey} -> {@link DiscardingSink} on
 *     Onceflow's runtime, heap state backend (what {@link EndToEndBenchmark} calls "eo");
 * <li><b>limit</b>: {@link PlainJavaLimit}, the same events and counts in a hand-written loop of a
 *     producer thread, a bounded hand-off and a consumer thread: no runtime at all;
 * <li><b>flink</b>: Flink's own {@link DataGeneratorSource} making the same events (the same
 *     {@link EventGenerator}) -> the same count in Flink keyed state (hashmap backend) -> a
 *     discarding sink, on a Flink MiniCluster (one task manager, two slots) started once before
 *     the rounds, checkpoints to a local directory.
 * </ul>
 *
 * <p>A run is timed from submission to the job's result, so both include starting the job and
 * its last checkpoint; the MiniCluster itself is up before the first round. Each run must deliver
 * exactly {@code rows} events to the sink, or the benchmark fails. The target of #9: Onceflow at
 * least 2x Flink's throughput on one machine.
 *
 * <p>Then the end-to-end latency of each, in one more run: the same pipeline with the source
 * rate-limited ({@code latency-rate}, total over both subtasks) for {@code latency-seconds}, a map
 * chained to the source stamping each event with {@link System#nanoTime()}, and a sink that
 * records the time from the stamp to its arrival. Both runtimes run in this JVM, so the clocks
 * agree. With a discarding sink nothing waits for a checkpoint: this is the time a record spends
 * in the runtime (its queues, the keyBy exchange, the barrier alignments), which a transactional
 * sink adds its commit to (see {@link KafkaBenchmark} and {@link KafkaPostgresBenchmark}).
 *
 * <p>Settings: {@code rows} (default 20,000,000), {@code rounds} (3), {@code latency-rate}
 * (50,000 records/s), {@code latency-seconds} (20; 0 leaves the latency runs out).
 */
public final class FlinkComparisonBenchmark {

    static final int PARALLELISM = 2;
    static final int KEYS = 1000;
    static final int PAYLOAD_SIZE = 16;
    static final double TARGET = 2.0;
    /** Static, so the generator lambda Flink serializes captures nothing. */
    static final EventGenerator GENERATOR = new EventGenerator(KEYS, PAYLOAD_SIZE);
    /** Before each run: how long the JIT must have compiled nothing, and the longest wait for that. */
    static final long JIT_QUIET_MILLIS = 500;
    static final long JIT_WAIT_MILLIS = 20_000;
    /** What the Flink job's sink received in the current run. */
    static final LongAdder FLINK_RECEIVED = new LongAdder();

    enum Runtime {
        ONCEFLOW("onceflow runtime"), FLINK("flink minicluster"), LIMIT("plain java limit");

        final String label;

        Runtime(String label) {
            this.label = label;
        }
    }

    public static void main(String[] args) {
        try {
            run(args);
            System.exit(0);
        } catch (Exception e) {
            e.printStackTrace();
            // The MiniCluster's threads would keep the JVM alive for minutes after a failure.
            System.exit(1);
        }
    }

    private static void run(String[] args) throws Exception {
        Map<String, String> arguments = BenchmarkArgs.parse("FlinkComparisonBenchmark", args,
                List.of("rows", "rounds", "latency-rate", "latency-seconds"),
                "rows=<n>, rounds=<n>, latency-rate=<records/s>, latency-seconds=<n>");
        long rows = Long.parseLong(arguments.getOrDefault("rows", "20000000").replace("_", ""));
        int rounds = Integer.parseInt(arguments.getOrDefault("rounds", "3"));
        int latencyRate = Integer.parseInt(arguments.getOrDefault("latency-rate", "50000").replace("_", ""));
        int latencySeconds = Integer.parseInt(arguments.getOrDefault("latency-seconds", "20"));
        if (rows < 1 || rounds < 1 || latencyRate < 1 || (latencySeconds < 3 && latencySeconds != 0)) {
            throw new IllegalArgumentException("rows, rounds and latency-rate must be >= 1, latency-seconds >= 3 "
                    + "(or 0: no latency runs)");
        }
        Path root = Files.createTempDirectory("onceflow-flink-comparison-");
        System.out.printf(Locale.ROOT, "FlinkComparisonBenchmark: datagen (%,d keys, %d-character payloads, parallelism %d)"
                + " -> keyBy(key) -> running count -> discarding sink, EXACTLY_ONCE every 1 s; %,d rows per run, %d rounds;"
                + " Java %s on %d processors, max heap %,d MB%n", KEYS, PAYLOAD_SIZE, PARALLELISM, rows, rounds,
                System.getProperty("java.version"), java.lang.Runtime.getRuntime().availableProcessors(),
                java.lang.Runtime.getRuntime().maxMemory() >> 20);
        MiniCluster cluster = startMiniCluster(root.resolve("flink"));
        // Jobs go to the running cluster through its REST endpoint, as a client would submit them;
        // the job's classes are on this JVM's class path, which the cluster's class loader sees.
        java.net.URI rest = cluster.getRestAddress().get();
        try {
            InterleavedRounds<Runtime> interleaved = new InterleavedRounds<>(
                    List.of(Runtime.FLINK, Runtime.ONCEFLOW, Runtime.LIMIT), r -> r.label, "records");
            int[] job = {0};
            Map<Runtime, List<Double>> results = interleaved.run(rounds, runtime -> {
                System.gc();
                waitForQuietJit();
                String name = "compare-" + (++job[0]);
                return switch (runtime) {
                    case ONCEFLOW -> onceflow(rows, root.resolve(name), name);
                    case FLINK -> flink(rest, rows, name);
                    case LIMIT -> PlainJavaLimit.run(GENERATOR, rows);
                };
            });
            Map<Runtime, long[]> latencies = new java.util.EnumMap<>(Runtime.class);
            for (Runtime runtime : latencySeconds == 0 ? List.<Runtime>of() : List.of(Runtime.FLINK, Runtime.ONCEFLOW)) {
                String name = "latency-" + runtime.name().toLowerCase(Locale.ROOT);
                latencies.put(runtime, runtime == Runtime.ONCEFLOW
                        ? onceflowLatency(latencyRate, latencySeconds, root.resolve(name), name)
                        : flinkLatency(rest, latencyRate, latencySeconds, name));
            }
            System.out.println();
            System.out.print(interleaved.report(results, Runtime.FLINK, Runtime.ONCEFLOW, TARGET,
                    "Onceflow >= 2x Flink's throughput on one machine"));
            // The same runs against the plain program: how close the runtime gets to what the job costs.
            System.out.println();
            System.out.print(interleaved.report(results, Runtime.LIMIT, Runtime.ONCEFLOW, 0, ""));
            if (latencySeconds == 0) {
                return;
            }
            System.out.printf(Locale.ROOT, "%nend-to-end latency, source to sink, at %,d records/s for %d s (the first "
                    + "2 s left out)%n", latencyRate, latencySeconds);
            for (Runtime runtime : List.of(Runtime.FLINK, Runtime.ONCEFLOW)) {
                long[] sorted = latencies.get(runtime);
                System.out.printf(Locale.ROOT, "%-20s p50 %8.2f ms  p99 %8.2f ms  p99.9 %8.2f ms  max %8.2f ms%n",
                        runtime.label, millis(sorted, 0.50), millis(sorted, 0.99), millis(sorted, 0.999),
                        sorted[sorted.length - 1] / 1e6);
            }
        } finally {
            cluster.close();
            deleteRecursively(root);
        }
    }

    private static double onceflow(long rows, Path checkpoints, String name) throws Exception {
        DiscardingSink<Event> sink = new DiscardingSink<>();
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(PARALLELISM)
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(Duration.ofSeconds(1))
                        .withDirectory(checkpoints));
        env.fromSource(DatagenSource.builder().rows(rows).keys(KEYS).payloadSize(PAYLOAD_SIZE).rowsPerSecond(0).build(),
                        "datagen").uid("datagen")
                .keyBy(Event::key, Serializers.STRING)
                .process(CountEventsByKey::new).uid("count")
                .sinkTo(sink).uid("discard");
        long start = System.nanoTime();
        dev.onceflow.runtime.execution.JobClient client = env.executeAsync(name);
        JobResult result = client.result().get();
        long nanos = System.nanoTime() - start;
        check("onceflow", result.status() == JobResult.Status.FINISHED ? sink.received() : -1, rows);
        List<Long> durations = client.checkpointHistory().entries().stream()
                .filter(stats -> stats.completed()).map(stats -> stats.durationMillis()).sorted().toList();
        printCheckpoints(Runtime.ONCEFLOW, durations);
        return rows * 1e9 / nanos;
    }

    /**
     * The latency job on Onceflow's runtime: {@code rate} events per second for {@code seconds},
     * each stamped with {@link System#nanoTime()} by a map chained to the source, and the time
     * from that stamp to the sink recorded; the same pipeline otherwise (keyBy, count, 1 s
     * EXACTLY_ONCE checkpoints). Returns the latencies in nanoseconds, sorted, without the first
     * two seconds of records (the job's start).
     */
    private static long[] onceflowLatency(int rate, int seconds, Path checkpoints, String name) throws Exception {
        long rows = (long) rate * seconds;
        Latencies.reset(rows);
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(PARALLELISM)
                .setCheckpointConfig(CheckpointConfig.defaults().withInterval(Duration.ofSeconds(1))
                        .withDirectory(checkpoints));
        env.fromSource(DatagenSource.builder().rows(rows).keys(KEYS).payloadSize(PAYLOAD_SIZE).rowsPerSecond(rate)
                        .build(), "datagen").uid("datagen")
                .map(Latencies::stamp).uid("stamp")
                .keyBy(Event::key, Serializers.STRING)
                .process(CountEventsByKey::new).uid("count")
                .sinkTo(new Latencies.OnceflowSink()).uid("latency");
        JobResult result = env.executeAsync(name).result().get();
        if (result.status() != JobResult.Status.FINISHED) {
            throw new IllegalStateException("the Onceflow latency job ended " + result.status());
        }
        return Latencies.sorted(rows, 2L * rate, "onceflow");
    }

    /** The same latency job on the MiniCluster, with Flink's rate-limited {@link DataGeneratorSource}. */
    private static long[] flinkLatency(java.net.URI rest, int rate, int seconds, String name) throws Exception {
        long rows = (long) rate * seconds;
        Latencies.reset(rows);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(),
                rest.getPort());
        env.setParallelism(PARALLELISM);
        env.enableCheckpointing(1_000);
        env.fromSource(new DataGeneratorSource<>(index -> GENERATOR.eventAt(index), rows,
                        org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy.perSecond(rate),
                        TypeInformation.of(Event.class)), WatermarkStrategy.noWatermarks(), "datagen").uid("datagen")
                .map(new Latencies.FlinkStamp()).uid("stamp")
                .keyBy(Event::key)
                .process(new FlinkCountByKey()).uid("count")
                .sinkTo(new Latencies.FlinkSink()).uid("latency");
        env.executeAsync(name).getJobExecutionResult().get();
        return Latencies.sorted(rows, 2L * rate, "flink");
    }

    private static double millis(long[] sortedNanos, double p) {
        return sortedNanos[Math.min(sortedNanos.length - 1, (int) Math.ceil(p * sortedNanos.length) - 1)] / 1e6;
    }

    /**
     * Latency samples of the job running in this JVM, in arrival order: the stamp is
     * {@link System#nanoTime()} in the payload, which both runtimes carry unchanged to the sink.
     */
    static final class Latencies {
        private static long[] samples = new long[0];
        private static final java.util.concurrent.atomic.AtomicInteger NEXT = new java.util.concurrent.atomic.AtomicInteger();

        static void reset(long rows) {
            samples = new long[Math.toIntExact(rows)];
            NEXT.set(0);
        }

        static Event stamp(Event event) {
            return new Event(event.id(), event.key(), Long.toString(System.nanoTime()), event.count());
        }

        static void record(Event event) {
            long latency = System.nanoTime() - Long.parseLong(event.payload());
            int index = NEXT.getAndIncrement();
            if (index < samples.length) {
                samples[index] = latency;
            }
        }

        /** Every record must have arrived; the first {@code skip} to arrive are left out. */
        static long[] sorted(long rows, long skip, String runtime) {
            if (NEXT.get() != rows) {
                throw new IllegalStateException(runtime + "'s latency job delivered " + NEXT.get() + " records, expected "
                        + rows);
            }
            long[] sorted = java.util.Arrays.copyOfRange(samples, (int) Math.min(skip, rows - 1), samples.length);
            java.util.Arrays.sort(sorted);
            return sorted;
        }

        static final class FlinkStamp implements org.apache.flink.api.common.functions.MapFunction<Event, Event> {
            private static final long serialVersionUID = 1L;

            @Override
            public Event map(Event event) {
                return stamp(event);
            }
        }

        static final class FlinkSink implements Sink<Event> {
            private static final long serialVersionUID = 1L;

            @Override
            public SinkWriter<Event> createWriter(WriterInitContext context) {
                return new SinkWriter<>() {
                    @Override
                    public void write(Event element, Context ignored) {
                        record(element);
                    }

                    @Override
                    public void flush(boolean endOfInput) {
                    }

                    @Override
                    public void close() {
                    }
                };
            }
        }

        /** Idempotent trivially: it stores nothing. */
        static final class OnceflowSink implements dev.onceflow.spi.sink.IdempotentSink<Event> {
            @Override
            public dev.onceflow.spi.sink.IdempotentWriter<Event> createWriter(dev.onceflow.spi.sink.SinkContext context) {
                return new dev.onceflow.spi.sink.IdempotentWriter<>() {
                    @Override
                    public void write(Event record) {
                        Latencies.record(record);
                    }

                    @Override
                    public void flush() {
                    }

                    @Override
                    public void close() {
                    }
                };
            }
        }
    }

    private static double flink(java.net.URI rest, long rows, String name) throws Exception {
        FLINK_RECEIVED.reset();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(),
                rest.getPort());
        env.setParallelism(PARALLELISM);
        env.enableCheckpointing(1_000);
        env.fromSource(new DataGeneratorSource<>(index -> GENERATOR.eventAt(index), rows, TypeInformation.of(Event.class)),
                        WatermarkStrategy.noWatermarks(), "datagen").uid("datagen")
                .keyBy(Event::key)
                .process(new FlinkCountByKey()).uid("count")
                .sinkTo(new CountingDiscardingSink()).uid("discard");
        long start = System.nanoTime();
        org.apache.flink.core.execution.JobClient client = env.executeAsync(name);
        client.getJobExecutionResult().get();
        long nanos = System.nanoTime() - start;
        check("flink", FLINK_RECEIVED.sum(), rows);
        printCheckpoints(Runtime.FLINK, flinkCheckpointDurations(rest, client.getJobID().toHexString()));
        return rows * 1e9 / nanos;
    }

    /**
     * Waits until the JIT has compiled nothing for {@value #JIT_QUIET_MILLIS} ms (at most
     * {@value #JIT_WAIT_MILLIS} ms), so a run does not share the 2 cores with the compiler still
     * working through the code of the run before it, which is mostly the other runtime's. Prints
     * how long it waited when that was clearly more than the quiet time itself.
     */
    static void waitForQuietJit() throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return;
        }
        long start = System.nanoTime();
        long quietSince = start;
        long compiled = jit.getTotalCompilationTime();
        while (System.nanoTime() - quietSince < TimeUnit.MILLISECONDS.toNanos(JIT_QUIET_MILLIS)
                && System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(JIT_WAIT_MILLIS)) {
            Thread.sleep(50); // polling a counter the JVM offers no wait for
            long now = jit.getTotalCompilationTime();
            if (now != compiled) {
                compiled = now;
                quietSince = System.nanoTime();
            }
        }
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (waited > JIT_QUIET_MILLIS + 100) {
            System.out.printf(Locale.ROOT, "           (waited %,d ms for the JIT to go quiet)%n", waited);
        }
    }

    /**
     * A Flink MiniCluster with one task manager of {@link #PARALLELISM} slots, listening on
     * 127.0.0.1 only on free ports, hashmap state, checkpoints to {@code checkpoints} on local
     * disk, and every checkpoint of a job kept in the REST history the benchmarks read.
     */
    static MiniCluster startMiniCluster(Path checkpoints) throws Exception {
        Configuration flinkConfig = new Configuration();
        flinkConfig.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        flinkConfig.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        // Every checkpoint of a run in the REST history the benchmark reads (default: the last 10).
        flinkConfig.set(org.apache.flink.configuration.WebOptions.CHECKPOINTS_HISTORY_SIZE, 1000);
        // Loopback only, on a free port.
        flinkConfig.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        flinkConfig.set(RestOptions.ADDRESS, "127.0.0.1");
        flinkConfig.set(RestOptions.BIND_PORT, "0");
        flinkConfig.set(TaskManagerOptions.HOST, "127.0.0.1");
        flinkConfig.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
        flinkConfig.set(org.apache.flink.configuration.JobManagerOptions.ADDRESS, "127.0.0.1");
        flinkConfig.set(org.apache.flink.configuration.JobManagerOptions.BIND_HOST, "127.0.0.1");
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(flinkConfig)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(PARALLELISM)
                .build());
        cluster.start();
        return cluster;
    }

    /**
     * The durations (trigger to completion, ms) of the job's completed checkpoints, from the
     * cluster's REST API ({@code /jobs/<id>/checkpoints}, its history of recent checkpoints).
     */
    static List<Long> flinkCheckpointDurations(java.net.URI rest, String jobId) throws Exception {
        java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(rest.resolve("/jobs/" + jobId + "/checkpoints")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        com.fasterxml.jackson.databind.JsonNode history = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(response.body()).path("history");
        List<Long> durations = new java.util.ArrayList<>();
        for (com.fasterxml.jackson.databind.JsonNode checkpoint : history) {
            if ("COMPLETED".equals(checkpoint.path("status").asText())) {
                durations.add(checkpoint.path("end_to_end_duration").asLong());
            }
        }
        durations.sort(null);
        return durations;
    }

    /** One line per run: how many checkpoints completed and how long they took (median, max). */
    private static void printCheckpoints(Runtime runtime, List<Long> sortedMillis) {
        if (sortedMillis.isEmpty()) {
            System.out.printf(Locale.ROOT, "           %-30s no completed checkpoint%n", runtime.label);
            return;
        }
        System.out.printf(Locale.ROOT, "           %-30s %d checkpoints, duration median %d ms, max %d ms%n", runtime.label,
                sortedMillis.size(), sortedMillis.get(sortedMillis.size() / 2), sortedMillis.get(sortedMillis.size() - 1));
    }

    private static void check(String runtime, long received, long rows) {
        if (received != rows) {
            throw new IllegalStateException(runtime + ": the sink received " + received + " records, not " + rows);
        }
    }

    /** {@link CountEventsByKey} in Flink: the key's running count in a {@code ValueState<Long>}. */
    static final class FlinkCountByKey extends KeyedProcessFunction<String, Event, Event> {
        private transient ValueState<Long> count;

        @Override
        public void open(OpenContext context) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
        }

        @Override
        public void processElement(Event event, Context context, Collector<Event> out) throws IOException {
            Long previous = count.value();
            long next = previous == null ? 1 : previous + 1;
            count.update(next);
            out.collect(event.withCount(next));
        }
    }

    /** Flink's discarding sink, counting what it drops (as Onceflow's {@link DiscardingSink} does). */
    static final class CountingDiscardingSink implements Sink<Event> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkWriter<Event> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                private long received;

                @Override
                public void write(Event element, Context ignored) {
                    received++;
                }

                @Override
                public void flush(boolean endOfInput) {
                }

                @Override
                public void close() {
                    FLINK_RECEIVED.add(received);
                }
            };
        }
    }

    private static void deleteRecursively(Path root) throws IOException {
        try (var paths = Files.walk(root)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
