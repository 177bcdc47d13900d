package dev.onceflow.runtime.api;

import java.time.Duration;
import java.util.Objects;

/**
 * How a source's records get their timestamps and how event time advances: the source emits a
 * watermark {@code w} meaning "no record with a timestamp {@code <= w} follows" (up to lateness
 * the strategy tolerates). Operators downstream see the minimum over their inputs; event-time
 * timers fire when it passes them.
 *
 * <pre>{@code
 * env.fromSource(source, WatermarkStrategy.<Event>forBoundedOutOfOrderness(Duration.ofSeconds(5))
 *         .withTimestampAssigner((event, sourceTimestamp) -> event.time()), "events")
 * }</pre>
 *
 * <p>Each source subtask tracks the highest timestamp it emitted and, every {@link #interval()},
 * emits {@code highest - outOfOrderness - 1} if that is higher than its last watermark. When a
 * bounded source subtask reaches the end of its input it emits the end of time
 * ({@code Long.MAX_VALUE}), so every event-time timer fires before the job finishes. Watermarks
 * are not checkpointed: after a restore they start again from the replayed records, which is
 * deterministic as long as timestamps are.
 *
 * @param outOfOrderness how far behind the highest timestamp seen a record may still arrive
 *        without being late; {@code null} for a source that emits no watermarks
 * @param assigner extracts a record's timestamp; {@code null} keeps the timestamp the source
 *        reader gave (see {@link dev.onceflow.spi.source.ReaderOutput#collect(Object, long)})
 * @param interval how often (in processing time) each source subtask emits a watermark
 * @param idleness after how long without records a source subtask stops holding back event time
 *        downstream ({@link Duration#ZERO}: never); it resumes with its next record
 */
public record WatermarkStrategy<T>(Duration outOfOrderness, TimestampAssigner<T> assigner, Duration interval,
        Duration idleness) {

    /** Default {@link #interval()}: as Flink's auto-watermark interval. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofMillis(200);

    public WatermarkStrategy {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(idleness, "idleness");
        if (outOfOrderness != null && outOfOrderness.isNegative()) {
            throw new IllegalArgumentException("outOfOrderness must not be negative: " + outOfOrderness);
        }
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the watermark interval must be positive: " + interval);
        }
        if (idleness.isNegative()) {
            throw new IllegalArgumentException("idleness must not be negative: " + idleness);
        }
    }

    /** Records may arrive up to {@code maxOutOfOrderness} behind the highest timestamp seen. */
    public static <T> WatermarkStrategy<T> forBoundedOutOfOrderness(Duration maxOutOfOrderness) {
        return new WatermarkStrategy<>(Objects.requireNonNull(maxOutOfOrderness, "maxOutOfOrderness"), null,
                DEFAULT_INTERVAL, Duration.ZERO);
    }

    /** Timestamps never decrease within a source subtask. */
    public static <T> WatermarkStrategy<T> forMonotonousTimestamps() {
        return forBoundedOutOfOrderness(Duration.ZERO);
    }

    /**
     * Records keep their timestamps but event time never advances (until a bounded source ends).
     * The default of {@link StreamEnvironment#fromSource(dev.onceflow.spi.source.ReplayableSource, String)}.
     */
    public static <T> WatermarkStrategy<T> noWatermarks() {
        return new WatermarkStrategy<>(null, null, DEFAULT_INTERVAL, Duration.ZERO);
    }

    public WatermarkStrategy<T> withTimestampAssigner(TimestampAssigner<T> value) {
        return new WatermarkStrategy<>(outOfOrderness, Objects.requireNonNull(value, "assigner"), interval, idleness);
    }

    public WatermarkStrategy<T> withInterval(Duration value) {
        return new WatermarkStrategy<>(outOfOrderness, assigner, value, idleness);
    }

    public WatermarkStrategy<T> withIdleness(Duration value) {
        return new WatermarkStrategy<>(outOfOrderness, assigner, interval, value);
    }

    /** Whether this strategy emits watermarks while the input lasts. */
    public boolean emitsWatermarks() {
        return outOfOrderness != null;
    }

    /** Extracts the event time of a record. Called on the source's task thread for every record. */
    @FunctionalInterface
    public interface TimestampAssigner<T> {

        /**
         * @param sourceTimestamp the timestamp the reader gave, or {@link Long#MIN_VALUE} if none
         * @return the record's timestamp in milliseconds; must be the same for the same record on replay
         */
        long extractTimestamp(T record, long sourceTimestamp);
    }
}
