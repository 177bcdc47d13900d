package dev.onceflow.benchmarks;

import dev.onceflow.connector.datagen.DatagenSource;
import dev.onceflow.runtime.api.StreamEnvironment;
import dev.onceflow.runtime.checkpoint.CheckpointStats;
import dev.onceflow.runtime.cli.CountByKey;
import dev.onceflow.runtime.cli.CountEventsByKey;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.config.CheckpointingMode;
import dev.onceflow.runtime.execution.JobClient;
import dev.onceflow.runtime.execution.JobExecutionException;
import dev.onceflow.runtime.execution.JobResult;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventRows;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowSerializer;
import dev.onceflow.spi.serialization.Serializers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * End-to-end throughput of {@code datagen -> keyBy(key).process(CountByKey) -> discarding sink}
 * with checkpointing off, EXACTLY_ONCE every second and AT_LEAST_ONCE every second, in one JVM;
 * and the same EXACTLY_ONCE job on rows, as a job file builds it ({@code rows}): datagen making
 * rows of the event's fields, {@code count-by-key} keyed by the key field's text, rows across the
 * exchange.
 *
 * <p>After a warm-up round, the configurations run interleaved ({@code off, eo, alo, off, eo, alo,
 * ...}) so that drift in the machine (other processes, thermal throttling, a GC that grew its
 * heap) hits every configuration alike instead of whichever happened to run last. Medians, not
 * means, summarize the rounds, so one disturbed run does not move the result.
 *
 * <p>Each run is timed from job submission to its {@link JobResult}, so it includes start-up and
 * the final checkpoint a bounded job always takes; with the default 20 M rows those are a small
 * part of a run of several seconds. Each run must deliver exactly {@code rows} records to the
 * sink, or the benchmark fails: a fast job that loses records measures nothing.
 *
 * <p>Settings, as system properties or {@code name=value} arguments: {@code rows} (per run,
 * default 20,000,000), {@code rounds} (default 3), {@code warmup} (default true), {@code configs}
 * (default {@code off,eo,alo,rows}; a subset such as {@code eo} is for profiling one configuration).
 */
public final class EndToEndBenchmark {

    static final int PARALLELISM = 2;
    static final int KEYS = 1000;
    static final int PAYLOAD_SIZE = 16;
    static final Duration INTERVAL = Duration.ofSeconds(1);
    /** The goal this benchmark exists to check: checkpointing exactly-once costs at most 5 %. */
    static final double TARGET_RATIO = 0.95;
    /** Rows, the records of job files, cost at most 10 % against the same job on events. */
    static final double ROWS_TARGET_RATIO = 0.9;
    private static final long PROGRESS_POLL_MILLIS = 100;

    /** The configurations compared; the first is the baseline of every ratio. */
    enum Mode {
        OFF("off", "checkpointing off", Duration.ZERO, CheckpointingMode.EXACTLY_ONCE),
        EXACTLY_ONCE("eo", "EXACTLY_ONCE 1 s", INTERVAL, CheckpointingMode.EXACTLY_ONCE),
        AT_LEAST_ONCE("alo", "AT_LEAST_ONCE 1 s", INTERVAL, CheckpointingMode.AT_LEAST_ONCE),
        ROWS("rows", "EXACTLY_ONCE, rows", INTERVAL, CheckpointingMode.EXACTLY_ONCE);

        final String shortName;
        final String label;
        final Duration interval;
        final CheckpointingMode mode;

        Mode(String shortName, String label, Duration interval, CheckpointingMode mode) {
            this.shortName = shortName;
            this.label = label;
            this.interval = interval;
            this.mode = mode;
        }

        CheckpointConfig checkpointConfig(Path directory) {
            // Interval ZERO disables periodic checkpoints; the bounded job still takes its final one.
            return CheckpointConfig.defaults().withInterval(interval).withMode(mode).withDirectory(directory);
        }
    }

    /** What the command line asked for. */
    record Settings(long rows, int rounds, boolean warmup, List<Mode> modes) {

        private static final List<String> NAMES = List.of("rows", "rounds", "warmup", "configs");

        Settings {
            if (modes.isEmpty()) {
                throw new IllegalArgumentException("configs must name at least one of off, eo, alo, rows");
            }
            if (rows < 1) {
                throw new IllegalArgumentException("rows must be >= 1, was " + rows);
            }
            if (rounds < 1) {
                throw new IllegalArgumentException("rounds must be >= 1, was " + rounds);
            }
        }

        /** System properties first, then {@code name=value} (or {@code --name=value}) arguments. */
        static Settings parse(String[] args) {
            Map<String, String> values = new HashMap<>();
            for (String name : NAMES) {
                String value = System.getProperty(name);
                if (value != null) {
                    values.put(name, value);
                }
            }
            for (String arg : args) {
                String plain = arg.startsWith("--") ? arg.substring(2) : arg;
                int eq = plain.indexOf('=');
                String name = eq < 0 ? "" : plain.substring(0, eq);
                if (!NAMES.contains(name)) {
                    throw new IllegalArgumentException("unknown argument '" + arg
                            + "'; accepted: rows=<n>, rounds=<n>, warmup=<true|false>, configs=<off,eo,alo,rows>");
                }
                values.put(name, plain.substring(eq + 1));
            }
            return new Settings(
                    parseLong("rows", values.getOrDefault("rows", "20000000")),
                    (int) parseLong("rounds", values.getOrDefault("rounds", "3")),
                    parseBoolean("warmup", values.getOrDefault("warmup", "true")),
                    parseModes(values.getOrDefault("configs", "off,eo,alo,rows")));
        }

        /** A subset of the configurations, for profiling one of them; always run in the table's order. */
        private static List<Mode> parseModes(String value) {
            Set<Mode> chosen = new HashSet<>();
            for (String name : value.split(",")) {
                Mode mode = Arrays.stream(Mode.values()).filter(m -> m.shortName.equals(name.trim())).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("configs: unknown configuration '" + name
                                + "'; accepted: off, eo, alo, rows"));
                chosen.add(mode);
            }
            return Arrays.stream(Mode.values()).filter(chosen::contains).toList();
        }

        private static long parseLong(String name, String value) {
            try {
                return Long.parseLong(value.replace("_", ""));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " must be an integer, was '" + value + "'");
            }
        }

        private static boolean parseBoolean(String name, String value) {
            if (!value.equals("true") && !value.equals("false")) {
                throw new IllegalArgumentException(name + " must be true or false, was '" + value + "'");
            }
            return Boolean.parseBoolean(value);
        }
    }

    /**
     * One measured job.
     *
     * @param checkpoints checkpoints completed, the final one included
     * @param maxCheckpointMillis the longest trigger-to-complete time among the checkpoints seen
     * @param maxAlignmentMillis the longest time any task held channels for a barrier
     */
    record Run(Mode mode, int round, long rows, long nanos, int checkpoints, int failedCheckpoints,
            long maxCheckpointMillis, long maxAlignmentMillis) {

        double recordsPerSecond() {
            return rows * 1e9 / nanos;
        }
    }

    private final Settings settings;
    private final Path checkpointRoot;
    private int jobCounter;

    EndToEndBenchmark(Settings settings, Path checkpointRoot) {
        this.settings = settings;
        this.checkpointRoot = checkpointRoot;
    }

    public static void main(String[] args) throws Exception {
        Settings settings;
        try {
            settings = Settings.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("EndToEndBenchmark: " + e.getMessage());
            System.exit(2);
            return;
        }
        Path root = Files.createTempDirectory("onceflow-benchmark-");
        try {
            EndToEndBenchmark benchmark = new EndToEndBenchmark(settings, root);
            List<Run> runs = benchmark.runAll();
            System.out.println();
            System.out.print(report(runs, settings));
        } finally {
            deleteRecursively(root);
        }
    }

    List<Run> runAll() throws Exception {
        System.out.printf(Locale.ROOT, "Onceflow end-to-end benchmark: datagen(keys=%d, payload=%d, unlimited rate, "
                + "parallelism %d) -> keyBy(key).process(CountByKey) -> discarding sink%n", KEYS, PAYLOAD_SIZE, PARALLELISM);
        System.out.printf(Locale.ROOT, "rows per run %,d, rounds %d, warm-up %s; Java %s on %d processors, max heap %,d MB%n",
                settings.rows(), settings.rounds(), settings.warmup() ? "yes" : "no", System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);
        if (settings.warmup()) {
            for (Mode mode : settings.modes()) {
                printRun("warm-up", runOnce(mode, 0));
            }
        }
        List<Run> runs = new ArrayList<>();
        for (int round = 1; round <= settings.rounds(); round++) {
            for (Mode mode : settings.modes()) {
                Run run = runOnce(mode, round);
                runs.add(run);
                printRun("round " + round, run);
            }
        }
        return runs;
    }

    /** Runs the job once with {@code mode} and checks that every record reached the sink. */
    Run runOnce(Mode mode, int round) throws Exception {
        // Garbage of the previous run should be collected on its own time, not this run's.
        System.gc();
        StreamEnvironment env = StreamEnvironment.create()
                .setParallelism(PARALLELISM)
                .setCheckpointConfig(mode.checkpointConfig(checkpointRoot));
        DatagenSource datagen = DatagenSource.builder()
                .rows(settings.rows())
                .keys(KEYS)
                .payloadSize(PAYLOAD_SIZE)
                .rowsPerSecond(0)
                .build();
        DiscardingSink<?> sink;
        if (mode == Mode.ROWS) {
            // What JobFileLoader builds for datagen -> count-by-key {key: key, count: count}.
            CountByKey.Fields count = CountByKey.Fields.of(EventRows.SCHEMA, "key", "count");
            DiscardingSink<Row> rows = new DiscardingSink<>();
            env.fromSource(datagen.asRows(), "datagen").uid("datagen").recordSerializer(RowSerializer.of(EventRows.SCHEMA))
                    .keyBy(count::keyOf, Serializers.STRING)
                    .process(count::function).uid("count-by-key").recordSerializer(RowSerializer.of(count.output()))
                    .sinkTo(rows).uid("discard");
            sink = rows;
        } else {
            DiscardingSink<Event> discard = new DiscardingSink<>();
            env.fromSource(datagen, "datagen").uid("datagen")
                    .keyBy(Event::key, Serializers.STRING)
                    .process(CountEventsByKey::new).uid("count-by-key")
                    .sinkTo(discard).uid("discard");
            sink = discard;
        }
        String jobName = "e2e-" + mode.shortName + "-" + (++jobCounter);

        Set<Long> completed = new HashSet<>();
        Set<Long> failed = new HashSet<>();
        long maxCheckpointMillis = 0;
        long maxAlignmentMillis = 0;

        long start = System.nanoTime();
        JobClient client = env.executeAsync(jobName);
        JobResult result;
        while (true) {
            try {
                result = client.result().get(PROGRESS_POLL_MILLIS, TimeUnit.MILLISECONDS);
                break;
            } catch (TimeoutException e) {
                // Checkpoints complete about once a second; polling ten times as often sees each.
                CheckpointStats stats = client.progress().lastCheckpoint();
                if (stats != null) {
                    (stats.completed() ? completed : failed).add(stats.checkpointId());
                    maxCheckpointMillis = Math.max(maxCheckpointMillis, stats.durationMillis());
                    maxAlignmentMillis = Math.max(maxAlignmentMillis, stats.maxAlignmentMillis());
                }
            } catch (ExecutionException e) {
                throw new JobExecutionException("benchmark job " + jobName + " failed: " + e.getCause(), e.getCause());
            }
        }
        long nanos = System.nanoTime() - start;

        CheckpointStats last = client.progress().lastCheckpoint();
        if (last != null) {
            (last.completed() ? completed : failed).add(last.checkpointId());
            maxCheckpointMillis = Math.max(maxCheckpointMillis, last.durationMillis());
            maxAlignmentMillis = Math.max(maxAlignmentMillis, last.maxAlignmentMillis());
        }
        verify(jobName, result, sink);
        deleteRecursively(client.jobDirectory().toPath());
        return new Run(mode, round, settings.rows(), nanos, completed.size(), failed.size(), maxCheckpointMillis,
                maxAlignmentMillis);
    }

    private void verify(String jobName, JobResult result, DiscardingSink<?> sink) {
        long rows = settings.rows();
        List<String> problems = new ArrayList<>();
        if (result.status() != JobResult.Status.FINISHED) {
            problems.add("status " + result.status() + " (expected FINISHED)");
        }
        if (result.restarts() != 0) {
            problems.add(result.restarts() + " restarts (expected none; the throughput would be meaningless)");
        }
        if (result.recordsRead() != rows) {
            problems.add("recordsRead " + result.recordsRead() + " != rows " + rows);
        }
        if (result.recordsWritten() != rows) {
            problems.add("recordsWritten " + result.recordsWritten() + " != rows " + rows);
        }
        if (sink.received() != rows) {
            problems.add("the sink received " + sink.received() + " records != rows " + rows);
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("benchmark job " + jobName + " did not deliver every record exactly once: "
                    + String.join("; ", problems));
        }
    }

    private static void printRun(String phase, Run run) {
        System.out.printf(Locale.ROOT, "  %-8s %-18s %7.2f s  %,13.0f rec/s  checkpoints %3d%s  max checkpoint %5d ms"
                        + "  max alignment %5d ms%n",
                phase, run.mode().label, run.nanos() / 1e9, run.recordsPerSecond(), run.checkpoints(),
                run.failedCheckpoints() > 0 ? " (" + run.failedCheckpoints() + " failed)" : "",
                run.maxCheckpointMillis(), run.maxAlignmentMillis());
    }

    /** The summary table and the verdict on the target. */
    static String report(List<Run> runs, Settings settings) {
        Map<Mode, List<Run>> byMode = new EnumMap<>(Mode.class);
        for (Run run : runs) {
            byMode.computeIfAbsent(run.mode(), m -> new ArrayList<>()).add(run);
        }
        // Without the baseline (configs=eo, for profiling) there are no ratios to show.
        double baseline = byMode.containsKey(Mode.OFF) ? median(byMode.get(Mode.OFF)) : Double.NaN;
        StringBuilder out = new StringBuilder();
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-18s", "config"));
        for (int round = 1; round <= settings.rounds(); round++) {
            header.append(String.format(Locale.ROOT, " %13s", "round " + round));
        }
        header.append(String.format(Locale.ROOT, " %13s %8s %12s", "median", "ratio", "checkpoints"));
        out.append("records per second (").append(String.format(Locale.ROOT, "%,d", settings.rows()))
                .append(" rows per run; ratio = median / median with checkpointing off)\n");
        out.append(header).append('\n');
        out.append("-".repeat(header.length())).append('\n');
        for (Mode mode : settings.modes()) {
            List<Run> modeRuns = byMode.get(mode);
            out.append(String.format(Locale.ROOT, "%-18s", mode.label));
            for (Run run : modeRuns) {
                out.append(String.format(Locale.ROOT, " %,13.0f", run.recordsPerSecond()));
            }
            double median = median(modeRuns);
            int[] checkpoints = modeRuns.stream().mapToInt(Run::checkpoints).sorted().toArray();
            String ratio = Double.isNaN(baseline) ? "-" : String.format(Locale.ROOT, "%.3f", median / baseline);
            out.append(String.format(Locale.ROOT, " %,13.0f %8s %12s%n", median, ratio,
                    checkpoints[0] == checkpoints[checkpoints.length - 1]
                            ? Integer.toString(checkpoints[0])
                            : checkpoints[0] + ".." + checkpoints[checkpoints.length - 1]));
        }
        if (byMode.containsKey(Mode.OFF) && byMode.containsKey(Mode.EXACTLY_ONCE)) {
            double ratio = median(byMode.get(Mode.EXACTLY_ONCE)) / baseline;
            out.append(String.format(Locale.ROOT, "%nTarget: EXACTLY_ONCE at 1 s >= %.2f x checkpointing off: %s "
                    + "(ratio %.3f)%n", TARGET_RATIO, ratio >= TARGET_RATIO ? "MET" : "NOT MET", ratio));
        }
        if (byMode.containsKey(Mode.EXACTLY_ONCE) && byMode.containsKey(Mode.ROWS)) {
            double paired = pairedRatio(byMode.get(Mode.ROWS), byMode.get(Mode.EXACTLY_ONCE));
            out.append(String.format(Locale.ROOT, "Target: rows >= %.2f x events, both EXACTLY_ONCE at 1 s: %s "
                    + "(paired ratio %.3f, ratio of medians %.3f)%n", ROWS_TARGET_RATIO,
                    paired >= ROWS_TARGET_RATIO ? "MET" : "NOT MET", paired,
                    median(byMode.get(Mode.ROWS)) / median(byMode.get(Mode.EXACTLY_ONCE))));
        }
        return out.toString();
    }

    /** The median over rounds of each round's run of {@code runs} divided by that round's run of {@code baseline}. */
    static double pairedRatio(List<Run> runs, List<Run> baseline) {
        double[] ratios = new double[runs.size()];
        for (int i = 0; i < ratios.length; i++) {
            ratios[i] = runs.get(i).recordsPerSecond() / baseline.get(i).recordsPerSecond();
        }
        Arrays.sort(ratios);
        int n = ratios.length;
        return n % 2 == 1 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
    }

    static double median(List<Run> runs) {
        double[] rates = runs.stream().mapToDouble(Run::recordsPerSecond).sorted().toArray();
        int n = rates.length;
        return n % 2 == 1 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
    }

    static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
