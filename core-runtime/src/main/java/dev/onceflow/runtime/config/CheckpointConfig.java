package dev.onceflow.runtime.config;

import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Checkpoint settings, with the meanings users know from stream processors.
 *
 * @param interval time between checkpoint triggers; {@link Duration#ZERO} disables periodic
 *     checkpoints (a bounded job still takes its final checkpoint)
 * @param timeout a checkpoint not complete after this long is aborted
 * @param maxConcurrent checkpoints in flight at once
 * @param minPause least time between the end of one checkpoint and the start of the next
 * @param tolerableFailures consecutive failed checkpoints tolerated before the job fails
 * @param retained completed checkpoints kept on disk
 * @param directory where checkpoints of all jobs go, on local disk or (with the Hadoop checkpoint
 *     storage on the class path) HDFS; each job gets a sub-directory named after it
 * @param unaligned barriers of periodic checkpoints overtake the records queued between tasks,
 *     which the checkpoint stores instead (EXACTLY_ONCE only): a checkpoint under backpressure no
 *     longer waits for the queues to drain. Savepoints and the final checkpoint stay aligned.
 */
public record CheckpointConfig(Duration interval, CheckpointingMode mode, Duration timeout, int maxConcurrent,
        Duration minPause, int tolerableFailures, int retained,
        CheckpointLocation directory, boolean unaligned) {

    public CheckpointConfig {
        if (unaligned && mode != CheckpointingMode.EXACTLY_ONCE) {
            throw new IllegalArgumentException("unaligned checkpoints need the exactly-once mode, got " + mode
                    + " (at-least-once does not align barriers in the first place)");
        }
        requireNonNegative(interval, "checkpoint interval");
        requireNonNegative(minPause, "checkpoint min-pause");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("checkpoint timeout must be positive, got " + timeout);
        }
        if (maxConcurrent < 1) {
            throw new IllegalArgumentException("checkpoint max-concurrent must be >= 1, got " + maxConcurrent);
        }
        if (tolerableFailures < 0) {
            throw new IllegalArgumentException("checkpoint tolerable-failures must be >= 0, got " + tolerableFailures);
        }
        if (retained < 1) {
            throw new IllegalArgumentException("checkpoint retained must be >= 1, got " + retained);
        }
    }

    /** Aligned checkpoints. */
    public CheckpointConfig(Duration interval, CheckpointingMode mode, Duration timeout, int maxConcurrent,
            Duration minPause, int tolerableFailures, int retained, CheckpointLocation directory) {
        this(interval, mode, timeout, maxConcurrent, minPause, tolerableFailures, retained, directory, false);
    }

    /** Every second, exactly-once, 10 minutes timeout, one at a time, keep 3, under {@code ./onceflow-data/checkpoints}. */
    /** The checkpoint directory unless one is set, relative to the working directory. */
    public static final String DEFAULT_DIRECTORY = "onceflow-data/checkpoints";

    public static CheckpointConfig defaults() {
        return new CheckpointConfig(Duration.ofSeconds(1), CheckpointingMode.EXACTLY_ONCE, Duration.ofMinutes(10), 1,
                Duration.ZERO, 0, 3, CheckpointLocation.of(Path.of(DEFAULT_DIRECTORY)));
    }

    public boolean periodic() {
        return !interval.isZero();
    }

    public CheckpointConfig withInterval(Duration value) {
        return new CheckpointConfig(value, mode, timeout, maxConcurrent, minPause, tolerableFailures, retained, directory,
                unaligned);
    }

    public CheckpointConfig withMode(CheckpointingMode value) {
        return new CheckpointConfig(interval, value, timeout, maxConcurrent, minPause, tolerableFailures, retained, directory,
                unaligned);
    }

    public CheckpointConfig withTimeout(Duration value) {
        return new CheckpointConfig(interval, mode, value, maxConcurrent, minPause, tolerableFailures, retained, directory,
                unaligned);
    }

    public CheckpointConfig withDirectory(CheckpointLocation value) {
        return new CheckpointConfig(interval, mode, timeout, maxConcurrent, minPause, tolerableFailures, retained, value,
                unaligned);
    }

    public CheckpointConfig withDirectory(Path value) {
        return withDirectory(CheckpointLocation.of(value));
    }

    public CheckpointConfig withRetained(int value) {
        return new CheckpointConfig(interval, mode, timeout, maxConcurrent, minPause, tolerableFailures, value, directory,
                unaligned);
    }

    public CheckpointConfig withTolerableFailures(int value) {
        return new CheckpointConfig(interval, mode, timeout, maxConcurrent, minPause, value, retained, directory,
                unaligned);
    }

    /** Unaligned (true) or aligned (false) periodic checkpoints; see {@link #unaligned()}. */
    public CheckpointConfig withUnaligned(boolean value) {
        return new CheckpointConfig(interval, mode, timeout, maxConcurrent, minPause, tolerableFailures, retained,
                directory, value);
    }

    private static void requireNonNegative(Duration d, String what) {
        if (d.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative, got " + d);
        }
    }
}
