package dev.onceflow.connector.datagen;

import dev.onceflow.spi.record.Event;

/**
 * Computes the event of a sequence number. A pure function of the sequence number and the
 * settings, so that a replay after a restore emits exactly the same records as the first run.
 * Public for harnesses that must produce the same rows without a job (the benchmarks' baselines).
 *
 * @param keys number of distinct keys, {@code >= 1}
 * @param payloadSize number of payload characters, {@code >= 0}
 */
public record EventGenerator(int keys, int payloadSize) {

    private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".toCharArray();

    public EventGenerator {
        if (keys < 1) {
            throw new IllegalArgumentException("keys must be >= 1, was " + keys);
        }
        if (payloadSize < 0) {
            throw new IllegalArgumentException("payload size must be >= 0, was " + payloadSize);
        }
    }

    /** The event of sequence number {@code sequence}. */
    public Event eventAt(long sequence) {
        return new Event(Long.toString(sequence), "key-" + (sequence % keys), payload(sequence), 0);
    }

    private String payload(long sequence) {
        char[] chars = new char[payloadSize];
        long state = sequence;
        for (int i = 0; i < payloadSize; i++) {
            // SplitMix64 steps: cheap, and consecutive sequence numbers give unrelated payloads,
            // so downstream compression or deduplication cannot make benchmarks look better.
            state += 0x9E3779B97F4A7C15L;
            long z = state;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            z = z ^ (z >>> 31);
            chars[i] = ALPHABET[(int) Long.remainderUnsigned(z, ALPHABET.length)];
        }
        return new String(chars);
    }
}
