package dev.onceflow.connector.datagen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventRows;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The generator's events are a pure function of the sequence number, and a replay after an upgrade
 * must emit what the first run emitted: they are compared here with the generator as it was first
 * written (a key string and a char array per event). That copy is kept on purpose, as the oracle.
 */
class EventGeneratorTest {

    private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".toCharArray();

    /** The first version, kept as the reference. */
    private static Event reference(long sequence, int keys, int payloadSize) {
        char[] chars = new char[payloadSize];
        long state = sequence;
        for (int i = 0; i < payloadSize; i++) {
            state += 0x9E3779B97F4A7C15L;
            long z = state;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            z = z ^ (z >>> 31);
            chars[i] = ALPHABET[(int) Long.remainderUnsigned(z, ALPHABET.length)];
        }
        return new Event(Long.toString(sequence), "key-" + (sequence % keys), new String(chars), 0);
    }

    @Test
    void eventsAreTheSameAsTheFirstVersionsWithCachedAndUncachedKeys() {
        SplittableRandom random = new SplittableRandom(42);
        long[] far = {Long.MAX_VALUE, Long.MAX_VALUE - 1, Long.MIN_VALUE, -1, -12_345, 1L << 62};
        for (int keys : new int[] {1, 7, 1000, EventGenerator.CACHED_KEYS, EventGenerator.CACHED_KEYS + 1, 1_000_000}) {
            for (int payloadSize : new int[] {0, 1, 16, 100}) {
                EventGenerator generator = new EventGenerator(keys, payloadSize);
                LongStream sequences = LongStream.concat(LongStream.range(0, 20_000),
                        LongStream.concat(LongStream.of(far), random.longs(2_000)));
                sequences.forEach(sequence -> assertThat(generator.eventAt(sequence))
                        .as("sequence %d, %d keys, payload %d", sequence, keys, payloadSize)
                        .isEqualTo(reference(sequence, keys, payloadSize)));
            }
        }
    }

    @Test
    void theEventsOfOneKeyShareItsStringWhenTheKeysAreCached() {
        EventGenerator cached = new EventGenerator(10, 4);
        assertThat(cached.eventAt(3).key()).isSameAs(cached.eventAt(13).key()).isEqualTo("key-3");

        EventGenerator many = new EventGenerator(EventGenerator.CACHED_KEYS + 1, 4);
        assertThat(many.eventAt(3).key()).isEqualTo(many.eventAt(3L + EventGenerator.CACHED_KEYS + 1).key())
                .isEqualTo("key-3");
    }

    @Test
    void badSettingsAreRefusedWithTheirValues() {
        assertThatThrownBy(() -> new EventGenerator(0, 4)).hasMessage("keys must be >= 1, was 0");
        assertThatThrownBy(() -> new EventGenerator(1, -1)).hasMessage("payload size must be >= 0, was -1");
    }

    @Test
    void rowsAreTheEventsAsRowsOfTheEventSchema() {
        for (int keys : new int[] {3, EventGenerator.CACHED_KEYS + 1}) {
            EventGenerator generator = new EventGenerator(keys, 9);
            for (long sequence : new long[] {0, 1, 2, 4_097, -5, Long.MAX_VALUE, Long.MIN_VALUE}) {
                assertThat(generator.rowAt(sequence)).as("sequence %d, %d keys", sequence, keys)
                        .isEqualTo(EventRows.toRow(reference(sequence, keys, 9)));
            }
        }
    }
}
