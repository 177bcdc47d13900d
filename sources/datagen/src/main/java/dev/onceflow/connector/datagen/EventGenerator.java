package dev.onceflow.connector.datagen;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventRows;
import dev.onceflow.spi.row.Row;
import java.nio.charset.StandardCharsets;

/**
 * Computes the event of a sequence number. A pure function of the sequence number and the
 * settings, so that a replay after a restore emits exactly the same records as the first run.
 * Public for harnesses that must produce the same rows without a job (the benchmarks' baselines).
 *
 * <p>Key strings are made once per generator when there are at most {@value #CACHED_KEYS} keys,
 * so the events of one key share one {@code String} (its hash is computed once). The events are
 * the same either way: the cache only saves work.
 */
public final class EventGenerator {

    /** Most keys whose names are made once, up front; about 50 bytes each. */
    static final int CACHED_KEYS = 4096;

    private static final byte[] ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
            .getBytes(StandardCharsets.US_ASCII);

    private final int keys;
    private final int payloadSize;
    private final String[] keyNames;

    /**
     * @param keys number of distinct keys, {@code >= 1}
     * @param payloadSize number of payload characters, {@code >= 0}
     */
    public EventGenerator(int keys, int payloadSize) {
        if (keys < 1) {
            throw new IllegalArgumentException("keys must be >= 1, was " + keys);
        }
        if (payloadSize < 0) {
            throw new IllegalArgumentException("payload size must be >= 0, was " + payloadSize);
        }
        this.keys = keys;
        this.payloadSize = payloadSize;
        if (keys <= CACHED_KEYS) {
            keyNames = new String[keys];
            for (int i = 0; i < keys; i++) {
                keyNames[i] = keyName(i);
            }
        } else {
            keyNames = null;
        }
    }

    public int keys() {
        return keys;
    }

    public int payloadSize() {
        return payloadSize;
    }

    /** The event of sequence number {@code sequence}. */
    public Event eventAt(long sequence) {
        long key = sequence % keys; // negative for a negative sequence, as it always was
        String name = keyNames != null && key >= 0 ? keyNames[(int) key] : keyName(key);
        return new Event(Long.toString(sequence), name, payload(sequence), 0);
    }

    /** The event of sequence number {@code sequence} as a row of {@link EventRows#SCHEMA}, made without the event. */
    public Row rowAt(long sequence) {
        long key = sequence % keys;
        String name = keyNames != null && key >= 0 ? keyNames[(int) key] : keyName(key);
        return Row.of(EventRows.SCHEMA, Long.toString(sequence), name, payload(sequence), 0L);
    }

    private static String keyName(long key) {
        return "key-" + key;
    }

    private String payload(long sequence) {
        byte[] bytes = new byte[payloadSize];
        long state = sequence;
        for (int i = 0; i < payloadSize; i++) {
            // SplitMix64 steps: cheap, and consecutive sequence numbers give unrelated payloads,
            // so downstream compression or deduplication cannot make benchmarks look better.
            state += 0x9E3779B97F4A7C15L;
            long z = state;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            z = z ^ (z >>> 31);
            bytes[i] = ALPHABET[(int) Long.remainderUnsigned(z, ALPHABET.length)];
        }
        // Latin-1 bytes become the string's own bytes: one copy, no scan for wide characters.
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }
}
