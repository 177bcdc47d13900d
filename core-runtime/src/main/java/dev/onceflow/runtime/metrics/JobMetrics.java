package dev.onceflow.runtime.metrics;

import dev.onceflow.runtime.checkpoint.CheckpointKind;
import dev.onceflow.runtime.checkpoint.CheckpointStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A job's meters, in one {@link MeterRegistry} for the job's whole life: every attempt binds its
 * live counters to the same meters, which add them to what earlier attempts counted, so a restart
 * neither resets a counter nor registers a second one. Every meter has the tag {@code job}. The
 * names and tags are listed in {@code docs/observability.md}.
 *
 * <p>Per-record counts stay out of Micrometer: tasks increment plain fields
 * ({@link RecordCounter}, {@code Task.records()}), and {@link FunctionCounter}s read them when the
 * registry is read. Micrometer holds those objects weakly, this class strongly, so the meters
 * report while the job's {@code JobClient} is reachable.
 */
public final class JobMetrics {

    public static final String RECORDS_IN = "onceflow.records.in";
    public static final String RECORDS_OUT = "onceflow.records.out";
    public static final String RECORDS_LATE = "onceflow.records.late";
    public static final String BACKPRESSURE_TIME = "onceflow.backpressure.time";
    public static final String CHECKPOINT_DURATION = "onceflow.checkpoint.duration";
    public static final String CHECKPOINT_SIZE = "onceflow.checkpoint.size";
    public static final String CHECKPOINT_FULL_SIZE = "onceflow.checkpoint.full.size";
    public static final String CHECKPOINT_ALIGNMENT = "onceflow.checkpoint.alignment";
    public static final String CHECKPOINT_FAILURES = "onceflow.checkpoint.failures";
    public static final String LAST_COMPLETED_CHECKPOINT = "onceflow.checkpoint.last.completed.id";
    public static final String RESTARTS = "onceflow.restarts";
    public static final String IN_FLIGHT_RECORDS = "onceflow.checkpoint.in.flight.records";

    private final MeterRegistry registry;
    private final Tags jobTags;
    private final Map<String, Cumulative> cumulative = new ConcurrentHashMap<>();
    private final AtomicLong lastCompleted = new AtomicLong();
    private final Counter restarts;

    public JobMetrics(String jobName, MeterRegistry registry) {
        this.registry = registry;
        this.jobTags = Tags.of("job", jobName);
        Gauge.builder(LAST_COMPLETED_CHECKPOINT, lastCompleted, AtomicLong::get).tags(jobTags)
                .description("id of the last checkpoint or savepoint this job completed; 0 before the first")
                .register(registry);
        this.restarts = Counter.builder(RESTARTS).tags(jobTags)
                .description("attempts restarted after a failure").register(registry);
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** This attempt's count of records {@code operator}'s subtask received. */
    public void bindRecordsIn(String operator, int subtask, LongSupplier live) {
        bind(RECORDS_IN, operator, subtask, live, null, "records the operator received");
    }

    /** This attempt's count of records {@code operator}'s subtask emitted. */
    public void bindRecordsOut(String operator, int subtask, LongSupplier live) {
        bind(RECORDS_OUT, operator, subtask, live, null, "records the operator emitted");
    }

    /**
     * This attempt's nanoseconds the task whose chain ends in {@code operator} spent handing record
     * batches to full channels (backpressure from downstream).
     */
    public void bindBackpressureNanos(String operator, int subtask, LongSupplier liveNanos) {
        bind(BACKPRESSURE_TIME, operator, subtask, liveNanos, "seconds",
                "time the operator's task waited for channel capacity");
    }

    private void bind(String name, String operator, int subtask, LongSupplier live, String seconds, String description) {
        String key = name + '|' + operator + '|' + subtask;
        Cumulative meter = cumulative.computeIfAbsent(key, k -> {
            Cumulative created = new Cumulative();
            FunctionCounter.builder(name, created, seconds == null ? Cumulative::value : c -> c.value() / 1e9)
                    .tags(jobTags.and("operator", operator, "subtask", Integer.toString(subtask)))
                    .baseUnit(seconds).description(description).register(registry);
            return created;
        });
        meter.bind(live);
    }

    /** A checkpoint or savepoint finished. Called on the coordinator thread. */
    public void checkpointFinished(CheckpointStats stats) {
        Tags tags = jobTags.and("kind", stats.kind() == CheckpointKind.SAVEPOINT ? "savepoint" : "checkpoint");
        if (!stats.completed()) {
            Counter.builder(CHECKPOINT_FAILURES).tags(tags).description("checkpoints that were aborted")
                    .register(registry).increment();
            return;
        }
        Timer.builder(CHECKPOINT_DURATION).tags(tags).description("from trigger to completion")
                .register(registry).record(Duration.ofMillis(stats.durationMillis()));
        DistributionSummary.builder(CHECKPOINT_SIZE).tags(tags).baseUnit("bytes")
                .description("bytes the checkpoint wrote (an incremental one: what changed since its base)")
                .register(registry).record(stats.stateBytes());
        DistributionSummary.builder(CHECKPOINT_FULL_SIZE).tags(tags).baseUnit("bytes")
                .description("bytes a restore of the checkpoint reads, shared files of earlier checkpoints included")
                .register(registry).record(stats.fullStateBytes());
        Timer.builder(CHECKPOINT_ALIGNMENT).tags(tags)
                .description("the longest time a task held its channels for the barrier")
                .register(registry).record(Duration.ofMillis(stats.maxAlignmentMillis()));
        lastCompleted.accumulateAndGet(stats.checkpointId(), Math::max);
    }

    /**
     * An unaligned checkpoint stored {@code count} records that were in flight into the task whose
     * chain starts with {@code operator}. Called on a snapshot thread.
     */
    public void inFlightRecordsStored(String operator, int subtask, long count) {
        Counter.builder(IN_FLIGHT_RECORDS).tags(jobTags.and("operator", operator, "subtask", Integer.toString(subtask)))
                .description("records in flight between tasks that unaligned checkpoints stored")
                .register(registry).increment(count);
    }

    /**
     * A keyed function of {@code operator}'s subtask left out a record that came too late. Called
     * on the task thread, for late records only: rare enough for a Micrometer call each.
     */
    public void lateRecord(String operator, int subtask) {
        Counter.builder(RECORDS_LATE).tags(jobTags.and("operator", operator, "subtask", Integer.toString(subtask)))
                .description("late records the operator left out").register(registry).increment();
    }

    /** The late records all keyed functions of the job in {@code registry} left out so far. */
    public static long lateRecords(MeterRegistry registry) {
        return (long) registry.find(RECORDS_LATE).counters().stream().mapToDouble(Counter::count).sum();
    }

    /** The job starts another attempt after a failure. */
    public void restarted() {
        restarts.increment();
    }

    /** What earlier attempts counted plus what the current one counts so far. */
    private static final class Cumulative {

        private record Binding(long earlier, LongSupplier live) {
        }

        // One volatile reference, replaced whole: a reader never sees the old attempt's count both
        // carried over and still live.
        private volatile Binding binding = new Binding(0, () -> 0);

        /** Called between attempts, when the previous attempt's tasks have ended. */
        void bind(LongSupplier live) {
            Binding previous = binding;
            binding = new Binding(previous.earlier() + previous.live().getAsLong(), live);
        }

        double value() {
            Binding current = binding;
            return current.earlier() + current.live().getAsLong();
        }
    }
}
