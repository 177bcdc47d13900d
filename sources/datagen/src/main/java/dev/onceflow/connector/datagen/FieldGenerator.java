package dev.onceflow.connector.datagen;

import dev.onceflow.spi.row.DataType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes the values of one field of a declared schema. A value is a pure function of the row's
 * sequence number and the field's 64 random bits for that sequence number ({@link RowGenerator}
 * derives them from the seed, the field's position and the sequence number), so a replay makes the
 * same values (SRC-1). Immutable and thread-safe.
 *
 * <p>A {@code random} generator draws more bits from those with {@link #draw}; a {@code sequence}
 * generator ignores them and counts from its start.
 */
abstract class FieldGenerator {

    /** SplitMix64's increment: consecutive multiples of it make unrelated outputs of {@link #mix}. */
    static final long GAMMA = 0x9E3779B97F4A7C15L;

    /** The value of the row with sequence number {@code sequence}; {@code random} is the field's bits for it. */
    abstract Object value(long sequence, long random);

    /**
     * How many rows this generator has values for: a sequence's number of values, or
     * {@link Long#MAX_VALUE} when it never runs out.
     */
    long length() {
        return Long.MAX_VALUE;
    }

    /** SplitMix64's output function: an unrelated 64-bit value for each input. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The {@code k}-th ({@code k >= 1}) further draw from {@code random}; draw 0 decides null. */
    static long draw(long random, int k) {
        return mix(random + k * GAMMA);
    }

    /** 53 of the bits as a fraction in [0, 1). */
    static double unit(long bits) {
        return (bits >>> 11) * 0x1.0p-53;
    }

    /** A uniform whole number in [0, span], span taken as unsigned (so -1 is the whole range of a long). */
    static long upTo(long bits, long span) {
        return span == -1 ? bits : Long.remainderUnsigned(bits, span + 1);
    }

    /** {@code inner}, or null for about {@code nullRate} of the rows. */
    static FieldGenerator nullable(FieldGenerator inner, double nullRate) {
        if (nullRate <= 0) {
            return inner;
        }
        return new FieldGenerator() {
            @Override
            Object value(long sequence, long random) {
                return unit(draw(random, 0)) < nullRate ? null : inner.value(sequence, random);
            }

            @Override
            long length() {
                return inner.length();
            }
        };
    }

    /** One of {@code values}, each about equally often. */
    static FieldGenerator oneOf(List<Object> values) {
        List<Object> choices = List.copyOf(values);
        return new FieldGenerator() {
            @Override
            Object value(long sequence, long random) {
                return choices.get((int) upTo(draw(random, 1), choices.size() - 1));
            }
        };
    }

    /** Lists of {@code length} elements, each from {@code element} with bits of its own. */
    static FieldGenerator array(FieldGenerator element, int length) {
        return new FieldGenerator() {
            @Override
            Object value(long sequence, long random) {
                List<Object> list = new ArrayList<>(length);
                for (int i = 0; i < length; i++) {
                    list.add(element.value(sequence, draw(random, 1 + i)));
                }
                return list;
            }
        };
    }

    private static final byte[] ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
            .getBytes(StandardCharsets.US_ASCII);

    /**
     * Random values of a scalar {@code type} between {@code min} and {@code max} (both included,
     * values of the type; ignored for boolean, string and bytes), strings and bytes of {@code length}.
     * Dates step by a day, times and timestamps by a microsecond from {@code min}.
     *
     * @throws ArithmeticException if the range has more microseconds than a long holds
     */
    static FieldGenerator random(DataType type, Object min, Object max, int length) {
        return switch (type.kind()) {
            case BOOLEAN -> of((s, r) -> (draw(r, 1) & 1) == 1);
            case INT -> {
                int low = (Integer) min;
                long span = (long) (Integer) max - low;
                yield of((s, r) -> (int) (low + upTo(draw(r, 1), span)));
            }
            case LONG -> {
                long low = (Long) min;
                long span = (Long) max - low; // unsigned: a span past Long.MAX_VALUE wraps, as upTo expects
                yield of((s, r) -> low + upTo(draw(r, 1), span));
            }
            case FLOAT -> {
                float low = (Float) min;
                float high = (Float) max;
                yield of((s, r) -> Math.min(high, (float) between(low, high, unit(draw(r, 1)))));
            }
            case DOUBLE -> {
                double low = (Double) min;
                double high = (Double) max;
                yield of((s, r) -> Math.min(high, between(low, high, unit(draw(r, 1)))));
            }
            case DECIMAL -> {
                BigInteger low = ((BigDecimal) min).unscaledValue();
                BigInteger count = ((BigDecimal) max).unscaledValue().subtract(low).add(BigInteger.ONE);
                int scale = type.scale();
                yield of((s, r) -> {
                    // 192 bits modulo a count below 2^128: each value about equally likely (bias < 2^-64)
                    byte[] bits = ByteBuffer.allocate(24).putLong(draw(r, 1)).putLong(draw(r, 2)).putLong(draw(r, 3))
                            .array();
                    return new BigDecimal(low.add(new BigInteger(1, bits).mod(count)), scale);
                });
            }
            case STRING -> of((s, r) -> {
                byte[] chars = new byte[length];
                for (int i = 0; i < length; i++) {
                    chars[i] = ALPHABET[(int) Long.remainderUnsigned(draw(r, 1 + i), ALPHABET.length)];
                }
                return new String(chars, StandardCharsets.ISO_8859_1);
            });
            case BYTES -> of((s, r) -> {
                byte[] bytes = new byte[length];
                for (int i = 0; i < length; i++) {
                    bytes[i] = (byte) (draw(r, 1 + i / 8) >>> (8 * (i % 8)));
                }
                return bytes;
            });
            case DATE -> {
                LocalDate low = (LocalDate) min;
                long span = ((LocalDate) max).toEpochDay() - low.toEpochDay();
                yield of((s, r) -> low.plusDays(upTo(draw(r, 1), span)));
            }
            case TIME -> {
                LocalTime low = (LocalTime) min;
                long span = ChronoUnit.MICROS.between(low, (LocalTime) max);
                yield of((s, r) -> low.plus(upTo(draw(r, 1), span), ChronoUnit.MICROS));
            }
            case TIMESTAMP -> {
                LocalDateTime low = (LocalDateTime) min;
                long span = ChronoUnit.MICROS.between(low, (LocalDateTime) max);
                yield of((s, r) -> low.plus(upTo(draw(r, 1), span), ChronoUnit.MICROS));
            }
            case TIMESTAMP_TZ -> {
                Instant low = (Instant) min;
                long span = ChronoUnit.MICROS.between(low, (Instant) max);
                yield of((s, r) -> low.plus(upTo(draw(r, 1), span), ChronoUnit.MICROS));
            }
            case ROW, ARRAY, MAP -> throw new IllegalArgumentException("no random generator for " + type);
        };
    }

    /** {@code low + fraction * (high - low)}, without overflowing to infinity for a range wider than the largest double. */
    private static double between(double low, double high, double fraction) {
        return low + (fraction * high - fraction * low);
    }

    /**
     * The values {@code start}, {@code start + 1}, ... up to {@code end} (both of {@code type}, but
     * longs for a string, whose values are the numbers' digits), one per sequence number: days for a
     * date, seconds for a time or timestamp. Its length is the number of values.
     */
    static FieldGenerator sequence(DataType type, Object start, Object end) {
        return switch (type.kind()) {
            case INT -> counting((Integer) end - (long) (Integer) start, s -> (int) ((Integer) start + s));
            case LONG, STRING -> {
                long first = (Long) start;
                long span = (Long) end - first;
                yield counting(span, type.kind() == DataType.Kind.LONG ? s -> first + s : s -> Long.toString(first + s));
            }
            case FLOAT -> counting(floorSpan((Float) end - (double) (Float) start), s -> (float) ((Float) start + (double) s));
            case DOUBLE -> counting(floorSpan((Double) end - (Double) start), s -> (Double) start + s);
            case DECIMAL -> {
                BigDecimal first = (BigDecimal) start;
                BigInteger span = ((BigDecimal) end).subtract(first).toBigInteger();
                yield counting(span.bitLength() < 64 ? span.longValueExact() : -1, s -> first.add(BigDecimal.valueOf(s)));
            }
            case DATE -> counting(((LocalDate) end).toEpochDay() - ((LocalDate) start).toEpochDay(),
                    s -> ((LocalDate) start).plusDays(s));
            case TIME -> counting(ChronoUnit.SECONDS.between((LocalTime) start, (LocalTime) end),
                    s -> ((LocalTime) start).plusSeconds(s));
            case TIMESTAMP -> counting(ChronoUnit.SECONDS.between((LocalDateTime) start, (LocalDateTime) end),
                    s -> ((LocalDateTime) start).plusSeconds(s));
            case TIMESTAMP_TZ -> counting(ChronoUnit.SECONDS.between((Instant) start, (Instant) end),
                    s -> ((Instant) start).plusSeconds(s));
            default -> throw new IllegalArgumentException("no sequence generator for " + type);
        };
    }

    /** A whole number of steps in a span of doubles, or -1 when it is beyond a long. */
    private static long floorSpan(double span) {
        return span >= 0x1.0p63 ? -1 : (long) Math.floor(span);
    }

    /**
     * A sequence of {@code span + 1} values ({@code span} from 0; -1 or an overflow past
     * {@link Long#MAX_VALUE}: more than a long counts, so it never runs out).
     */
    private static FieldGenerator counting(long span, java.util.function.LongFunction<Object> valueAt) {
        long length = span < 0 || span == Long.MAX_VALUE ? Long.MAX_VALUE : span + 1;
        return new FieldGenerator() {
            @Override
            Object value(long sequence, long random) {
                return valueAt.apply(sequence);
            }

            @Override
            long length() {
                return length;
            }
        };
    }

    /** The values of a function of the sequence number and the bits. */
    private interface Values {
        Object at(long sequence, long random);
    }

    private static FieldGenerator of(Values values) {
        return new FieldGenerator() {
            @Override
            Object value(long sequence, long random) {
                return values.at(sequence, random);
            }
        };
    }
}
