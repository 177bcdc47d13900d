package dev.onceflow.conformance;

import dev.onceflow.spi.factory.OptionValues;
import dev.onceflow.spi.factory.SinkFactory;
import dev.onceflow.spi.sink.AtLeastOnceSink;
import dev.onceflow.spi.sink.BestEffortSink;
import dev.onceflow.spi.sink.GenericWriteAheadSink;
import dev.onceflow.spi.sink.IdempotentSink;
import dev.onceflow.spi.sink.Sink;
import dev.onceflow.spi.sink.TwoPhaseCommitSink;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * The SPI contract a sink implements, and so what the suite holds it to. The contract is read from
 * the sink the factory builds for a case's options, never from the fixture: a sink is judged by
 * what its type promises ({@code docs/spec.md}), not by what its author says of it.
 */
public enum SinkContract {
    /** {@link TwoPhaseCommitSink}: every id exactly once (EO-1). */
    TWO_PHASE_COMMIT,
    /** {@link GenericWriteAheadSink}: measured; exactly-once only if WAL-3 holds. */
    WRITE_AHEAD,
    /** {@link IdempotentSink}: every id exactly once once replays overwrite (IDEM-1); a duplicate breaks IDEM-1. */
    IDEMPOTENT,
    /** {@link AtLeastOnceSink}: nothing lost (ALO-1); duplicates counted, never exactly-once. */
    AT_LEAST_ONCE,
    /** {@link BestEffortSink}: promises nothing, so the suite has nothing to check (BE-1). */
    BEST_EFFORT;

    /** The contract {@code sink} implements; an {@link IdempotentSink} is {@link #IDEMPOTENT}, not at-least-once. */
    public static SinkContract of(Sink<?> sink) {
        if (sink instanceof TwoPhaseCommitSink<?, ?>) {
            return TWO_PHASE_COMMIT;
        } else if (sink instanceof GenericWriteAheadSink<?>) {
            return WRITE_AHEAD;
        } else if (sink instanceof IdempotentSink<?>) {
            return IDEMPOTENT;
        } else if (sink instanceof AtLeastOnceSink<?>) {
            return AT_LEAST_ONCE;
        }
        return BEST_EFFORT;
    }

    /** The contract of the sink that the factory {@code identifier} builds from job file {@code options}. */
    public static SinkContract of(String identifier, Map<String, Object> options) {
        SinkFactory factory = ServiceLoader.load(SinkFactory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> f.identifier().equals(identifier)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no sink factory '" + identifier + "' on the classpath"));
        Map<String, String> raw = new TreeMap<>();
        options.forEach((key, value) -> raw.put(key, String.valueOf(value)));
        return of(factory.createSink(OptionValues.validate("sink '" + identifier + "'", raw, factory.options())));
    }
}
