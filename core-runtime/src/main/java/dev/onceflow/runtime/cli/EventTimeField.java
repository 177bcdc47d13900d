package dev.onceflow.runtime.cli;

import dev.onceflow.runtime.api.WatermarkStrategy;
import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.function.Function;

/**
 * A source's {@code event-time} block, checked against the schema of its rows: each row's event
 * time is the value of one {@code timestamptz} field, or of a {@code timestamp} field read as UTC.
 * A row whose field is null fails the job naming the row: a row without a time cannot be put in
 * any window, and leaving it out would lose it silently.
 */
final class EventTimeField {

    private final int position;
    private final String name;
    private final DataType type;
    private final Duration maxOutOfOrderness;
    private final Duration idleness;
    private final String owner;

    private EventTimeField(int position, String name, DataType type, Duration maxOutOfOrderness, Duration idleness,
            String owner) {
        this.position = position;
        this.name = name;
        this.type = type;
        this.maxOutOfOrderness = maxOutOfOrderness;
        this.idleness = idleness;
        this.owner = owner;
    }

    /**
     * The event time {@code spec} declares over rows of {@code schema}.
     *
     * @param owner names the source, as {@code source 'file'}
     * @throws IllegalArgumentException with one line naming the key of the block and what it accepts
     */
    static EventTimeField of(JobFile.EventTime spec, Schema schema, String owner) {
        String block = owner + " event-time";
        int position = schema.indexOf(spec.field());
        if (position < 0) {
            throw new IllegalArgumentException(block + " field: '" + spec.field() + "' is not a field of the source's "
                    + "rows; fields: " + String.join(", ", schema.names()));
        }
        DataType type = schema.field(position).type();
        if (type.kind() != DataType.Kind.TIMESTAMP && type.kind() != DataType.Kind.TIMESTAMP_TZ) {
            throw new IllegalArgumentException(block + " field: '" + spec.field() + "' is a " + type
                    + "; event time comes from a timestamptz field, or a timestamp field read as UTC");
        }
        Duration outOfOrderness = duration(spec.maxOutOfOrderness(), block + " max-out-of-orderness");
        Duration idleness = spec.idleness() == null ? Duration.ZERO : duration(spec.idleness(), block + " idleness");
        if (spec.idleness() != null && idleness.isZero()) {
            throw new IllegalArgumentException(block + " idleness: must be longer than 0; leave it out for a source "
                    + "that never goes idle");
        }
        return new EventTimeField(position, spec.field(), type, outOfOrderness, idleness, block);
    }

    private static Duration duration(String text, String key) {
        try {
            return Option.parseDuration(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + ": " + e.getMessage());
        }
    }

    /**
     * The watermarks of a source whose records become rows by {@code toRow}: bounded
     * out-of-orderness over this field's times, and the idleness if declared.
     */
    <T> WatermarkStrategy<T> strategy(Function<T, Row> toRow) {
        WatermarkStrategy<T> strategy = WatermarkStrategy.<T>forBoundedOutOfOrderness(maxOutOfOrderness)
                .withTimestampAssigner((record, sourceTimestamp) -> timestamp(toRow.apply(record)));
        return idleness.isZero() ? strategy : strategy.withIdleness(idleness);
    }

    /** The event time of {@code row} in milliseconds since the epoch. */
    long timestamp(Row row) {
        Object value = row.get(position);
        if (value == null) {
            throw new IllegalStateException(owner + ": field '" + name + "' is null in "
                    + RowExpressions.describe(row) + "; every row needs its event time");
        }
        Instant instant = type.kind() == DataType.Kind.TIMESTAMP
                ? ((LocalDateTime) value).toInstant(ZoneOffset.UTC) : (Instant) value;
        try {
            return instant.toEpochMilli();
        } catch (ArithmeticException e) {
            throw new IllegalStateException(owner + ": field '" + name + "' is " + instant + " in "
                    + RowExpressions.describe(row) + ", beyond what event time holds in milliseconds");
        }
    }
}
