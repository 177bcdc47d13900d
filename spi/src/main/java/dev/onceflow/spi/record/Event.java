package dev.onceflow.spi.record;

import java.util.Objects;

/**
 * The record type of declarative jobs (job files): connectors found through
 * {@link dev.onceflow.spi.factory.SourceFactory} and {@link dev.onceflow.spi.factory.SinkFactory}
 * produce and consume it, so any source can be wired to any sink without code.
 *
 * @param id unique id of the record within its source; what exactly-once is checked on
 * @param key the key that keyed steps (such as {@code count-by-key}) group by
 * @param payload free text carried through unchanged
 * @param count the running count of {@code key} set by a {@code count-by-key} step, else 0
 */
public record Event(String id, String key, String payload, long count) {

    public Event {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(payload, "payload");
    }

    /** This event with {@code count} replaced. */
    public Event withCount(long newCount) {
        return new Event(id, key, payload, newCount);
    }
}
