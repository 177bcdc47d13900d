package dev.onceflow.benchmarks;

import dev.onceflow.connector.datagen.EventGenerator;
import dev.onceflow.spi.record.Event;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * What the keyed count of {@link FlinkComparisonBenchmark} costs without any runtime: the limit a
 * runtime on the same threads can approach. One producer thread makes the same events with the
 * same {@link EventGenerator} and hands them over in batches of {@value #BATCH} through a bounded
 * queue of {@value #QUEUED_BATCHES} batches (the sizes of Onceflow's channels); one consumer
 * thread keeps each key's count in a {@code HashMap<String, long[]>} (one lookup per event) and
 * emits every event with its running count, as {@code CountEventsByKey} does, to a discard that
 * sums the counts.
 *
 * <p>No checkpoints, no job start, no serialization: everything a runtime adds is left out, so
 * "Onceflow / limit" says how much of the machine's work on this job is the runtime's. The run
 * fails unless every event arrived and the counts sum to exactly what {@code rows} events over
 * the generator's keys give.
 */
final class PlainJavaLimit {

    static final int BATCH = 256;
    static final int QUEUED_BATCHES = 8;
    private static final Event[] END = new Event[0];

    private PlainJavaLimit() {
    }

    /** Runs {@code rows} events through the two threads; returns events per second. */
    static double run(EventGenerator generator, long rows) throws Exception {
        BlockingQueue<Event[]> handOff = new ArrayBlockingQueue<>(QUEUED_BATCHES);
        Exception[] failure = new Exception[1];
        Thread producer = new Thread(() -> {
            try {
                Event[] batch = new Event[BATCH];
                int size = 0;
                for (long sequence = 0; sequence < rows; sequence++) {
                    batch[size++] = generator.eventAt(sequence);
                    if (size == BATCH) {
                        handOff.put(batch);
                        batch = new Event[BATCH];
                        size = 0;
                    }
                }
                if (size > 0) {
                    handOff.put(java.util.Arrays.copyOf(batch, size));
                }
                handOff.put(END);
            } catch (InterruptedException e) {
                failure[0] = e;
            }
        }, "limit-producer");
        long start = System.nanoTime();
        producer.start();
        Map<String, long[]> counts = new HashMap<>();
        long received = 0;
        long countSum = 0;
        for (Event[] batch = handOff.take(); batch != END; batch = handOff.take()) {
            for (Event event : batch) {
                long[] count = counts.get(event.key());
                if (count == null) {
                    count = new long[1];
                    counts.put(event.key(), count);
                }
                Event out = event.withCount(++count[0]);
                received++;
                countSum += out.count();
            }
        }
        long nanos = System.nanoTime() - start;
        producer.join();
        if (failure[0] != null) {
            throw failure[0];
        }
        check(generator.keys(), rows, received, countSum);
        return rows * 1e9 / nanos;
    }

    /** Each of the {@code keys} keys seen n times contributes 1 + 2 + ... + n to the sum of counts. */
    private static void check(int keys, long rows, long received, long countSum) {
        long expected = 0;
        for (int key = 0; key < keys; key++) {
            long n = rows / keys + (key < rows % keys ? 1 : 0);
            expected += n * (n + 1) / 2;
        }
        if (received != rows || countSum != expected) {
            throw new IllegalStateException("plain java limit: received " + received + " events (expected " + rows
                    + "), counts summing to " + countSum + " (expected " + expected + ")");
        }
    }
}
