package dev.onceflow.benchmarks;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.checkpoint.CheckpointKind;
import dev.onceflow.runtime.checkpoint.CheckpointStats;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.execution.JobClient;
import dev.onceflow.runtime.metrics.JobMetrics;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventSerializer;
import dev.onceflow.spi.serialization.Serializers;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * Checkpoint duration under backpressure, aligned against unaligned, in one run.
 *
 * <p>The job: unthrottled datagen -> keyBy(key) -> a step that costs {@code work-us} microseconds
 * per record (parked in slices, like a slow external system) -> a discarding sink, at parallelism
 * {@code parallelism}. The source outruns the slow step, so the channels into it stay full: an
 * aligned barrier waits behind every record queued before it, an unaligned one overtakes them and
 * the checkpoint stores them instead. Each round runs each mode for {@code seconds} with a
 * checkpoint every {@code interval-ms}, after {@code warmup-s} seconds in which the queues fill;
 * the report gives the median and the slowest checkpoint duration per mode, the records stored in
 * flight, the throughput, and the ratio of the medians (unaligned / aligned).
 */
public final class UnalignedCheckpointBenchmark {

    enum Config {
        ALIGNED("aligned"),
        UNALIGNED("unaligned");

        final String shortName;

        Config(String shortName) {
            this.shortName = shortName;
        }
    }

    /** The checkpoints completed in one measured run, and what it processed. */
    record Run(Config config, List<CheckpointStats> checkpoints, double recordsPerSecond, double inFlightPerCheckpoint) {

        long durationPercentile(double p) {
            List<Long> sorted = checkpoints.stream().map(CheckpointStats::durationMillis).sorted().toList();
            if (sorted.isEmpty()) {
                return -1;
            }
            int rank = (int) Math.ceil(p * sorted.size()) - 1;
            return sorted.get(Math.max(0, Math.min(rank, sorted.size() - 1)));
        }
    }

    /** The slow step's cost: {@code workNanos} per record, parked every 64 records. */
    static final class SlowStep implements dev.onceflow.runtime.api.MapFunction<Event, Event> {
        private static final int SLICE = 64;
        private final long workNanos;
        private int count;

        SlowStep(long workNanos) {
            this.workNanos = workNanos;
        }

        @Override
        public Event map(Event event) {
            if (++count % SLICE == 0) {
                LockSupport.parkNanos(workNanos * SLICE);
            }
            return event;
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> settings = BenchmarkArgs.parse("UnalignedCheckpointBenchmark", args,
                List.of("parallelism", "work-us", "seconds", "warmup-s", "interval-ms", "rounds", "configs"),
                "parallelism=2 work-us=100 seconds=20 warmup-s=3 interval-ms=1000 rounds=3 configs=aligned,unaligned");
        int parallelism = Integer.parseInt(settings.getOrDefault("parallelism", "2"));
        long workNanos = TimeUnit.MICROSECONDS.toNanos(Long.parseLong(settings.getOrDefault("work-us", "100")));
        long seconds = Long.parseLong(settings.getOrDefault("seconds", "20"));
        long warmupSeconds = Long.parseLong(settings.getOrDefault("warmup-s", "3"));
        long intervalMillis = Long.parseLong(settings.getOrDefault("interval-ms", "1000"));
        int rounds = Integer.parseInt(settings.getOrDefault("rounds", "3"));
        List<Config> configs = BenchmarkArgs.configs(settings.getOrDefault("configs", "aligned,unaligned"),
                Config.values(), c -> c.shortName);
        System.out.printf(Locale.ROOT, "UnalignedCheckpointBenchmark: parallelism %d, %d us per record in the slow"
                + " step, %d rounds of %d s per mode (after %d s of warm-up each), checkpoints every %d ms%n",
                parallelism, TimeUnit.NANOSECONDS.toMicros(workNanos), rounds, seconds, warmupSeconds, intervalMillis);

        List<Run> runs = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            List<Config> order = new ArrayList<>(configs);
            if (round % 2 == 0) {
                java.util.Collections.reverse(order);
            }
            for (Config config : order) {
                Run run = run(config, parallelism, workNanos, seconds, warmupSeconds, intervalMillis);
                runs.add(run);
                System.out.printf(Locale.ROOT, "  round %d %-9s: %3d checkpoints, duration p50 %5d ms, max %5d ms,"
                        + " %,8.0f in flight per checkpoint, %,9.0f records/s%n", round, config.shortName,
                        run.checkpoints.size(), run.durationPercentile(0.5), run.durationPercentile(1.0),
                        run.inFlightPerCheckpoint, run.recordsPerSecond);
            }
        }

        System.out.println();
        System.out.printf(Locale.ROOT, "%-10s %12s %14s %12s %16s %14s%n", "mode", "checkpoints", "duration p50",
                "p99", "in flight/ckpt", "records/s");
        Map<Config, Run> merged = new java.util.EnumMap<>(Config.class);
        for (Config config : configs) {
            List<Run> of = runs.stream().filter(r -> r.config == config).toList();
            List<CheckpointStats> all = of.stream().flatMap(r -> r.checkpoints.stream()).toList();
            double throughput = BenchmarkArgs.median(of.stream().map(Run::recordsPerSecond).toList());
            double inFlight = BenchmarkArgs.median(of.stream().map(Run::inFlightPerCheckpoint).toList());
            Run total = new Run(config, all, throughput, inFlight);
            merged.put(config, total);
            System.out.printf(Locale.ROOT, "%-10s %12d %11d ms %9d ms %16.0f %14.0f%n", config.shortName, all.size(),
                    total.durationPercentile(0.5), total.durationPercentile(0.99), inFlight, throughput);
        }
        Run aligned = merged.get(Config.ALIGNED);
        Run unaligned = merged.get(Config.UNALIGNED);
        if (aligned != null && unaligned != null && aligned.durationPercentile(0.5) > 0) {
            System.out.printf(Locale.ROOT, "ratio: median checkpoint duration unaligned / aligned = %.3f"
                    + " (p99: %.3f); throughput unaligned / aligned = %.3f%n",
                    (double) unaligned.durationPercentile(0.5) / aligned.durationPercentile(0.5),
                    (double) unaligned.durationPercentile(0.99) / aligned.durationPercentile(0.99),
                    unaligned.recordsPerSecond / aligned.recordsPerSecond);
        }
    }

    private static Run run(Config config, int parallelism, long workNanos, long seconds, long warmupSeconds,
            long intervalMillis) throws Exception {
        Path checkpoints = Files.createTempDirectory("onceflow-unaligned-");
        MeterRegistry registry = new SimpleMeterRegistry();
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(parallelism)
                .setMeterRegistry(registry)
                .setCheckpointConfig(CheckpointConfig.defaults()
                        .withInterval(Duration.ofMillis(intervalMillis))
                        .withTimeout(Duration.ofMinutes(5))
                        .withRetained(1)
                        .withDirectory(checkpoints)
                        .withUnaligned(config == Config.UNALIGNED));
        env.fromSource(DatagenSource.builder().keys(1000).payloadSize(16).build(), "events").uid("events")
                .recordSerializer(EventSerializer.INSTANCE)
                .keyBy(Event::key, Serializers.STRING)
                .process(dev.onceflow.runtime.cli.CountEventsByKey::new).uid("count")
                .map(new SlowStep(workNanos)).uid("slow")
                .sinkTo(new DiscardingSink<Event>()).uid("discard");
        JobClient client = env.executeAsync("unaligned-" + config.shortName);
        try {
            Thread.sleep(TimeUnit.SECONDS.toMillis(warmupSeconds));
            long start = System.currentTimeMillis();
            double inFlightBefore = inFlight(registry);
            long before = client.progress().recordsRead();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (System.nanoTime() < end) {
                // The harness only waits: the measurements are the job's checkpoint statistics.
                Thread.sleep(Math.min(1000, Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()))));
                if (client.result().isDone()) {
                    throw new IllegalStateException(config.shortName + ": the job ended: " + client.result().join());
                }
            }
            long stop = System.currentTimeMillis();
            long records = client.progress().recordsRead() - before;
            List<CheckpointStats> inWindow = client.checkpointHistory().entries().stream()
                    .filter(c -> c.completed() && c.kind() == CheckpointKind.CHECKPOINT
                            && c.triggerTimestamp() >= start && c.triggerTimestamp() < stop)
                    .sorted(Comparator.comparingLong(CheckpointStats::checkpointId))
                    .toList();
            double stored = inFlight(registry) - inFlightBefore;
            return new Run(config, inWindow, records * 1000.0 / (stop - start),
                    inWindow.isEmpty() ? 0 : stored / inWindow.size());
        } finally {
            client.cancel();
            client.result().handle((r, e) -> null).get(2, TimeUnit.MINUTES);
            deleteRecursively(checkpoints);
        }
    }

    private static double inFlight(MeterRegistry registry) {
        return registry.find(JobMetrics.IN_FLIGHT_RECORDS).counters().stream().mapToDouble(Counter::count).sum();
    }

    private static void deleteRecursively(Path dir) throws java.io.IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
