package dev.onceflow.runtime.cli;

import dev.onceflow.runtime.checkpoint.CheckpointFileSystem;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import dev.onceflow.runtime.config.CheckpointConfig;
import dev.onceflow.runtime.config.CheckpointingMode;
import dev.onceflow.runtime.config.RestartStrategy;
import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.factory.OptionValues;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A job file's runtime settings, {@code checkpoints:} and {@code restart:}, declared as options
 * like a connector's: each value parsed and checked before the job runs (one line naming the
 * setting on a problem), each default written once (the checkpoint defaults are
 * {@link CheckpointConfig#defaults()}'s), and the documentation tables generated from here.
 */
public final class RuntimeSettings {

    private static final CheckpointConfig DEFAULTS = CheckpointConfig.defaults();

    public static final Option<Duration> INTERVAL = Option.durationOption("interval").defaultValue(DEFAULTS.interval())
            .description("Time between the starts of two checkpoints; 0 turns periodic checkpoints off (a bounded "
                    + "job still takes its final one).");
    public static final Option<CheckpointingMode> MODE = Option.enumOption("mode", CheckpointingMode.class)
            .defaultValue(DEFAULTS.mode())
            .description("exactly-once aligns barriers; at-least-once does not, so a restore may replay records the "
                    + "restored state already counted.");
    public static final Option<String> DIR = Option.stringOption("dir").defaultValue(CheckpointConfig.DEFAULT_DIRECTORY)
            .validate(s -> !s.isBlank(), "a directory path or a URI such as hdfs://namenode:8020/checkpoints")
            .description("Where checkpoints and savepoints go, in a directory named after the job inside it: a local path or a URI of a "
                    + "checkpoint storage on the class path (hdfs://).");
    public static final Option<Duration> TIMEOUT = Option.durationOption("timeout").defaultValue(DEFAULTS.timeout())
            .validate(d -> !d.isZero(), "a duration above 0 such as 10m")
            .description("A checkpoint not complete after this long is aborted.");
    public static final Option<Integer> MAX_CONCURRENT = Option.intOption("max-concurrent")
            .defaultValue(DEFAULTS.maxConcurrent()).atLeast(1)
            .description("How many checkpoints may be in progress at once.");
    public static final Option<Duration> MIN_PAUSE = Option.durationOption("min-pause")
            .defaultValue(DEFAULTS.minPause())
            .description("The least time between the end of one checkpoint and the start of the next.");
    public static final Option<Integer> TOLERABLE_FAILURES = Option.intOption("tolerable-failures")
            .defaultValue(DEFAULTS.tolerableFailures()).atLeast(0)
            .description("Checkpoints that may fail in a row before the job fails.");
    public static final Option<Integer> RETAINED = Option.intOption("retained").defaultValue(DEFAULTS.retained())
            .atLeast(1).description("Completed checkpoints kept on disk; older ones are deleted.");
    public static final Option<Boolean> UNALIGNED = Option.booleanOption("unaligned").defaultValue(DEFAULTS.unaligned())
            .description("Unaligned checkpoints: barriers overtake queued records, which are stored in the "
                    + "checkpoint. Needs mode exactly-once.");

    /** The options of {@code checkpoints:}, in the order the docs list them. */
    public static final List<Option<?>> CHECKPOINT_OPTIONS = List.of(INTERVAL, MODE, DIR, TIMEOUT, MAX_CONCURRENT,
            MIN_PAUSE, TOLERABLE_FAILURES, RETAINED, UNALIGNED);

    /** How a job restarts inside its process after a failure. */
    public enum Strategy {
        /** The job fails (exit status 1); resume it with {@code --resume latest}. */
        NONE,
        /** Up to {@code attempts} restarts in all, {@code delay} apart. */
        FIXED_DELAY,
        /** Restarts unless more than {@code max-failures} failures fell within {@code interval}. */
        FAILURE_RATE
    }

    public static final Option<Strategy> STRATEGY = Option.enumOption("strategy", Strategy.class)
            .defaultValue(Strategy.NONE)
            .description("none: a failure ends the job; fixed-delay: up to attempts restarts; failure-rate: restarts "
                    + "unless more than max-failures failures fall within interval.");
    public static final Option<Integer> ATTEMPTS = Option.intOption("attempts").defaultValue(3).atLeast(0)
            .description("fixed-delay only: restarts in all, per process.");
    public static final Option<Duration> DELAY = Option.durationOption("delay").defaultValue(Duration.ofSeconds(1))
            .description("fixed-delay and failure-rate: the wait before a restart.");
    public static final Option<Integer> MAX_FAILURES = Option.intOption("max-failures").defaultValue(3).atLeast(1)
            .description("failure-rate only: failures tolerated within interval.");
    public static final Option<Duration> FAILURE_INTERVAL = Option.durationOption("interval")
            .defaultValue(Duration.ofMinutes(1)).validate(d -> !d.isZero(), "a duration above 0 such as 1m")
            .description("failure-rate only: the window in which failures are counted.");

    /** The options of {@code restart:}, in the order the docs list them. */
    public static final List<Option<?>> RESTART_OPTIONS = List.of(STRATEGY, ATTEMPTS, DELAY, MAX_FAILURES,
            FAILURE_INTERVAL);

    /** The restart settings of a job file, for Onceflow's runtime and for the Flink bridge. */
    public record Restart(Strategy strategy, int attempts, Duration delay, int maxFailures, Duration interval) {

        public RestartStrategy toStrategy() {
            return switch (strategy) {
                case NONE -> RestartStrategy.none();
                case FIXED_DELAY -> RestartStrategy.fixedDelay(attempts, delay);
                case FAILURE_RATE -> RestartStrategy.failureRate(maxFailures, interval, delay);
            };
        }
    }

    private RuntimeSettings() {
    }

    /**
     * The {@code checkpoints:} settings of a job file ({@code null}: none) over the defaults.
     *
     * @param where the job file, for messages
     */
    public static CheckpointConfig checkpoints(Map<String, Object> settings, String where) throws JobFileException {
        OptionValues values = validate("checkpoints", settings, CHECKPOINT_OPTIONS, where);
        CheckpointingMode mode = values.get(MODE);
        boolean unaligned = values.get(UNALIGNED);
        if (unaligned && mode != CheckpointingMode.EXACTLY_ONCE) {
            throw new JobFileException(where + ": checkpoints.unaligned needs checkpoints.mode exactly-once (at-least-once"
                    + " does not align barriers in the first place)");
        }
        CheckpointLocation directory;
        try {
            directory = CheckpointLocation.of(values.get(DIR));
            CheckpointFileSystem.requireSupported(directory);
        } catch (IllegalArgumentException e) {
            throw new JobFileException(where + ": checkpoints.dir: " + e.getMessage());
        }
        return new CheckpointConfig(values.get(INTERVAL), mode, values.get(TIMEOUT), values.get(MAX_CONCURRENT),
                values.get(MIN_PAUSE), values.get(TOLERABLE_FAILURES), values.get(RETAINED), directory, unaligned);
    }

    /**
     * The {@code restart:} settings of a job file ({@code null}: none, the job fails on a failure).
     * A setting that the chosen strategy does not use is refused, since it would do nothing.
     */
    public static Restart restart(Map<String, Object> settings, String where) throws JobFileException {
        OptionValues values = validate("restart", settings, RESTART_OPTIONS, where);
        Strategy strategy = values.get(STRATEGY);
        List<Option<?>> used = switch (strategy) {
            case NONE -> List.of(STRATEGY);
            case FIXED_DELAY -> List.of(STRATEGY, ATTEMPTS, DELAY);
            case FAILURE_RATE -> List.of(STRATEGY, MAX_FAILURES, FAILURE_INTERVAL, DELAY);
        };
        if (settings != null) {
            for (String key : settings.keySet()) {
                if (used.stream().noneMatch(option -> option.key().equals(key))) {
                    throw new JobFileException(where + ": restart." + key + " does nothing with strategy "
                            + strategy.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-') + "; remove it");
                }
            }
        }
        return new Restart(strategy, values.get(ATTEMPTS), values.get(DELAY), values.get(MAX_FAILURES),
                values.get(FAILURE_INTERVAL));
    }

    private static OptionValues validate(String section, Map<String, Object> settings, List<Option<?>> options,
            String where) throws JobFileException {
        Map<String, String> raw = new LinkedHashMap<>();
        if (settings != null) {
            for (Map.Entry<String, Object> entry : settings.entrySet()) {
                Object value = entry.getValue();
                if (value == null || value instanceof Map || value instanceof List) {
                    throw new JobFileException(where + ": " + section + "." + entry.getKey() + " needs a single value");
                }
                raw.put(entry.getKey(), value.toString());
            }
        }
        try {
            return OptionValues.validate(section, raw, options);
        } catch (OptionException e) {
            throw new JobFileException(where + ": " + e.getMessage());
        }
    }
}
