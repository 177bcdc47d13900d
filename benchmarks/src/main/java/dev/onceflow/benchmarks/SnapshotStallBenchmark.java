package dev.onceflow.benchmarks;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.runtime.api.Collector;
import dev.onceflow.runtime.api.KeyedProcessFunction;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.checkpoint.CheckpointStats;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.execution.JobClient;
import dev.onceflow.runtime.execution.JobProgress;
import dev.onceflow.runtime.operator.KeyedProcessOperator;
import dev.onceflow.runtime.state.StateDescriptor;
import dev.onceflow.runtime.state.ValueState;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventSerializer;
import dev.onceflow.spi.serialization.Serializers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How long a checkpoint of large keyed state stops processing: the longest gap between two
 * consecutive records at the keyed operator during each checkpoint interval, with copy-on-write
 * snapshots ({@code async}), with the state serialized at the barrier as before them
 * ({@code sync}), and without checkpoints ({@code off}: what garbage collection and the machine
 * alone cause), in one run.
 *
 * <p>The job: unbounded datagen ({@code keys} distinct keys, {@code payload}-character payloads,
 * {@code rate} records per second) -> keyBy(key) -> the last event per key in a
 * {@code ValueState<Event>} -> a discarding sink, parallelism 1, so one task thread holds all the
 * state. Each configuration first fills the state (one record per key), then measures for
 * {@code seconds} with a checkpoint every {@code interval-ms}. The operator records every gap
 * between records; a gap longer than the source's own spacing is processing that stood still.
 *
 * <p>The target: with 500 MB of keyed state, no checkpoint stalls processing for longer
 * than 50 ms at p99. The state's size is the checkpoints' measured size; the benchmark says so if
 * it is below 500 MB.
 */
public final class SnapshotStallBenchmark {

    static final long TARGET_STALL_MILLIS = 50;
    static final long TARGET_STATE_BYTES = 500L * 1024 * 1024;

    enum Config {
        OFF("off", "no checkpoints"),
        ASYNC("async", "copy-on-write snapshot"),
        SYNC("sync", "serialized at the barrier");

        final String shortName;
        final String label;

        Config(String shortName, String label) {
            this.shortName = shortName;
            this.label = label;
        }
    }

    /** One measured configuration. */
    record Result(Config config, List<Long> slotMaxGapNanos, long recordGapP999Nanos, List<CheckpointStats> checkpoints,
            long recordsMeasured) {

        long stallPercentile(double p) {
            List<Long> sorted = slotMaxGapNanos.stream().sorted().toList();
            if (sorted.isEmpty()) {
                return 0;
            }
            int rank = (int) Math.ceil(p * sorted.size()) - 1;
            return sorted.get(Math.max(0, Math.min(rank, sorted.size() - 1)));
        }

        long medianStateBytes() {
            // The state's size, not what an incremental checkpoint uploaded.
            List<Long> sizes = checkpoints.stream().map(CheckpointStats::fullStateBytes).sorted().toList();
            return sizes.isEmpty() ? 0 : sizes.get(sizes.size() / 2);
        }

        long medianDurationMillis() {
            List<Long> durations = checkpoints.stream().map(CheckpointStats::durationMillis).sorted().toList();
            return durations.isEmpty() ? 0 : durations.get(durations.size() / 2);
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> settings = BenchmarkArgs.parse("SnapshotStallBenchmark", args,
                List.of("keys", "payload", "rate", "seconds", "interval-ms", "configs"),
                "keys=2200000 payload=200 rate=200000 seconds=30 interval-ms=5000 configs=off,async,sync");
        int keys = Integer.parseInt(settings.getOrDefault("keys", "2200000"));
        int payload = Integer.parseInt(settings.getOrDefault("payload", "200"));
        long rate = Long.parseLong(settings.getOrDefault("rate", "200000"));
        long seconds = Long.parseLong(settings.getOrDefault("seconds", "30"));
        long intervalMillis = Long.parseLong(settings.getOrDefault("interval-ms", "5000"));
        List<Config> configs = BenchmarkArgs.configs(settings.getOrDefault("configs", "off,async,sync"),
                Config.values(), c -> c.shortName);
        System.out.printf(Locale.ROOT, "SnapshotStallBenchmark: %,d keys, %d-character payloads, %,d records/s, "
                + "%d s measured per configuration, checkpoints every %d ms, max heap %d MB%n",
                keys, payload, rate, seconds, intervalMillis, Runtime.getRuntime().maxMemory() >> 20);

        List<Result> results = new ArrayList<>();
        for (Config config : configs) {
            results.add(run(config, keys, payload, rate, seconds, intervalMillis));
            System.gc();
        }

        System.out.println();
        System.out.printf(Locale.ROOT, "%-28s %11s %12s %12s %12s %12s %12s %12s%n", "config", "checkpoints",
                "state MB", "ckpt ms p50", "stall p50", "stall p99", "stall max", "gap p99.9");
        for (Result r : results) {
            System.out.printf(Locale.ROOT, "%-28s %11d %12.1f %12d %10.1fms %10.1fms %10.1fms %10.2fms%n",
                    r.config.label, r.checkpoints.size(), r.medianStateBytes() / 1048576.0, r.medianDurationMillis(),
                    r.stallPercentile(0.5) / 1e6, r.stallPercentile(0.99) / 1e6, r.stallPercentile(1.0) / 1e6,
                    r.recordGapP999Nanos / 1e6);
        }
        Result async = find(results, Config.ASYNC);
        Result sync = find(results, Config.SYNC);
        if (async != null && sync != null && sync.stallPercentile(0.99) > 0) {
            System.out.printf(Locale.ROOT, "ratio: p99 stall copy-on-write / serialized at the barrier = %.3f%n",
                    (double) async.stallPercentile(0.99) / sync.stallPercentile(0.99));
        }
        if (async != null) {
            boolean bigEnough = async.medianStateBytes() >= TARGET_STATE_BYTES;
            boolean met = async.stallPercentile(0.99) <= TimeUnit.MILLISECONDS.toNanos(TARGET_STALL_MILLIS);
            System.out.printf(Locale.ROOT, "target: p99 stall <= %d ms with >= 500 MB of state: %s (state %.0f MB%s)%n",
                    TARGET_STALL_MILLIS, met && bigEnough ? "met" : "NOT met", async.medianStateBytes() / 1048576.0,
                    bigEnough ? "" : ", below 500 MB: raise keys or payload");
        }
    }

    private static Result find(List<Result> results, Config config) {
        return results.stream().filter(r -> r.config == config).findFirst().orElse(null);
    }

    private static Result run(Config config, int keys, int payload, long rate, long seconds, long intervalMillis)
            throws Exception {
        System.setProperty(KeyedProcessOperator.SYNCHRONOUS_SNAPSHOTS, Boolean.toString(config == Config.SYNC));
        Path checkpoints = Files.createTempDirectory("onceflow-stall-");
        Gaps.reset();
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(1)
                .setCheckpointConfig(CheckpointConfig.defaults()
                        .withInterval(config == Config.OFF ? Duration.ZERO : Duration.ofMillis(intervalMillis))
                        .withTimeout(Duration.ofMinutes(5))
                        .withRetained(1)
                        .withDirectory(checkpoints));
        env.fromSource(DatagenSource.builder().keys(keys).payloadSize(payload).rowsPerSecond(rate).build(), "events")
                .uid("events")
                .keyBy(Event::key, Serializers.STRING)
                .process(LastPerKey::new).uid("last")
                .sinkTo(new DiscardingSink<Event>()).uid("discard");
        JobClient client = env.executeAsync("stall-" + config.shortName);
        try {
            long filling = System.nanoTime();
            while (client.progress().recordsRead() < keys) {
                awaitProgress(client, filling, "filling the state of " + config.label);
            }
            System.out.printf(Locale.ROOT, "  %s: state filled (%,d keys) in %.1f s; measuring %d s%n", config.label,
                    keys, (System.nanoTime() - filling) / 1e9, seconds);
            long before = client.progress().recordsRead();
            long start = System.currentTimeMillis();
            Gaps.start();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (System.nanoTime() < end) {
                // The harness itself only waits: the measurement is in the operator.
                Thread.sleep(Math.min(1000, Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()))));
            }
            Gaps.stop();
            long stop = System.currentTimeMillis();
            JobProgress progress = client.progress();
            if (progress.restarts() > 0) {
                throw new IllegalStateException(config.label + ": the job restarted " + progress.restarts() + " times");
            }
            List<CheckpointStats> inWindow = client.checkpointHistory().entries().stream()
                    .filter(c -> c.completed() && c.triggerTimestamp() >= start && c.triggerTimestamp() < stop)
                    .toList();
            List<Long> slots = Gaps.maxPerSlot(start, stop, intervalMillis);
            Result result = new Result(config, slots, Gaps.recordGapPercentileNanos(0.999), inWindow,
                    progress.recordsRead() - before);
            System.out.printf(Locale.ROOT, "  %s: %,d records, %d checkpoints, longest gaps per %d ms: %s%n",
                    config.label, result.recordsMeasured, inWindow.size(), intervalMillis,
                    slots.stream().sorted(Comparator.reverseOrder()).limit(6)
                            .map(n -> String.format(Locale.ROOT, "%.1fms", n / 1e6)).toList());
            return result;
        } finally {
            client.cancel();
            client.result().handle((r, e) -> null).get(2, TimeUnit.MINUTES);
            deleteRecursively(checkpoints);
        }
    }

    private static void awaitProgress(JobClient client, long sinceNanos, String what) throws InterruptedException {
        Thread.sleep(200);
        if (client.result().isDone()) {
            throw new IllegalStateException(what + ": the job ended: " + client.result().join());
        }
        long elapsed = System.nanoTime() - sinceNanos;
        if (elapsed > TimeUnit.MINUTES.toNanos(10)) {
            throw new IllegalStateException(what + ": not done after 10 minutes");
        }
    }

    private static void deleteRecursively(Path dir) throws java.io.IOException {
        try (var paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    /** Keeps each key's last event: state grows to one event per key. */
    static final class LastPerKey extends KeyedProcessFunction<String, Event, Event> {

        private ValueState<Event> last;

        @Override
        public void open(KeyedContext context) {
            last = context.getState(StateDescriptor.value("last", EventSerializer.INSTANCE));
        }

        @Override
        public void processElement(Event event, Context<String> context, Collector<Event> out) {
            Gaps.tick();
            last.update(event);
        }
    }

    /**
     * The gaps between consecutive records at the operator, recorded on its task thread: a
     * histogram of all of them and the time of every gap of at least 1 ms.
     */
    static final class Gaps {
        private static final long NOTABLE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
        /** Bucket {@code i} counts gaps in {@code [2^i, 2^(i+1))} nanoseconds. */
        private static final long[] HISTOGRAM = new long[64];
        private static final List<long[]> NOTABLE = new ArrayList<>();
        private static volatile boolean recording;
        private static long last;

        static synchronized void reset() {
            java.util.Arrays.fill(HISTOGRAM, 0);
            NOTABLE.clear();
            last = 0;
        }

        static void start() {
            recording = true;
        }

        static void stop() {
            recording = false;
        }

        static void tick() {
            long now = System.nanoTime();
            long gap = now - last;
            last = now;
            if (!recording) {
                return;
            }
            synchronized (Gaps.class) {
                HISTOGRAM[63 - Long.numberOfLeadingZeros(Math.max(1, gap))]++;
                if (gap >= NOTABLE_NANOS) {
                    NOTABLE.add(new long[] {System.currentTimeMillis(), gap});
                }
            }
        }

        /** The longest gap that ended in each {@code slotMillis} slot from {@code start} to {@code stop}. */
        static synchronized List<Long> maxPerSlot(long start, long stop, long slotMillis) {
            int slots = (int) Math.max(1, (stop - start) / slotMillis);
            long[] max = new long[slots];
            for (long[] gap : NOTABLE) {
                int slot = (int) ((gap[0] - start) / slotMillis);
                if (slot >= 0 && slot < slots) {
                    max[slot] = Math.max(max[slot], gap[1]);
                }
            }
            List<Long> result = new ArrayList<>();
            for (long m : max) {
                result.add(m);
            }
            return result;
        }

        /** An upper bound (the bucket's end) of the {@code p} quantile of all gaps. */
        static synchronized long recordGapPercentileNanos(double p) {
            long total = 0;
            for (long count : HISTOGRAM) {
                total += count;
            }
            long rank = (long) Math.ceil(p * total);
            long seen = 0;
            for (int i = 0; i < HISTOGRAM.length; i++) {
                seen += HISTOGRAM[i];
                if (seen >= rank && total > 0) {
                    return 1L << (i + 1);
                }
            }
            return 0;
        }
    }
}
