package dev.onceflow.spi.row;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Locale;

/**
 * The text form of scalar values that text formats share (CSV cells, JSON strings for dates and
 * bytes, JSON object keys of maps), so that every format writes a date, a decimal or bytes the same
 * way:
 *
 * <ul>
 *   <li>boolean {@code true} / {@code false} (case-insensitive on read);</li>
 *   <li>int, long: decimal digits; float, double: Java's shortest round-tripping form, with
 *       {@code NaN}, {@code Infinity}, {@code -Infinity};</li>
 *   <li>decimal: plain digits, never an exponent, with exactly the type's scale; a value with
 *       more digits after the point than the scale is refused, never rounded;</li>
 *   <li>string: itself; bytes: standard base64 with padding;</li>
 *   <li>date {@code 2026-12-06}; time {@code 12:30:05.123456}; timestamp
 *       {@code 2026-12-06T12:30:05.123456} (a space instead of the {@code T} is read too);
 *       timestamptz {@code 2026-12-06T11:30:05.123456Z} (written in UTC; read with any offset).
 *       Seconds are always written, fractions of a second only when not zero, in groups of three
 *       digits.</li>
 * </ul>
 */
public final class TextValues {

    private TextValues() {
    }

    /**
     * The text of {@code value}, a non-null value of the scalar {@code type}.
     *
     * @throws IllegalArgumentException if {@code type} is a row, array or map
     */
    public static String format(DataType type, Object value) {
        return switch (type.kind()) {
            case BOOLEAN, INT, LONG, STRING -> value.toString();
            case FLOAT, DOUBLE -> value.toString();
            case DECIMAL -> ((BigDecimal) value).toPlainString();
            case BYTES -> Base64.getEncoder().encodeToString((byte[]) value);
            case DATE -> value.toString();
            case TIME -> withSeconds(value.toString(), ((LocalTime) value).getSecond() == 0
                    && ((LocalTime) value).getNano() == 0);
            case TIMESTAMP_TZ -> {
                // LocalDateTime's toString builds the text directly; the ISO_INSTANT formatter took a
                // quarter of the json format's time
                Instant instant = (Instant) value;
                yield format(DataType.TIMESTAMP, LocalDateTime.ofEpochSecond(instant.getEpochSecond(),
                        instant.getNano(), ZoneOffset.UTC)) + "Z";
            }
            case TIMESTAMP -> withSeconds(value.toString(), ((LocalDateTime) value).getSecond() == 0
                    && ((LocalDateTime) value).getNano() == 0);
            case ROW, ARRAY, MAP -> throw new IllegalArgumentException("no text form for " + type);
        };
    }

    /**
     * The value of the scalar {@code type} that {@code text} writes.
     *
     * @throws IllegalArgumentException with a one-line reason (not naming a field: the caller
     *     knows it), if {@code text} is not such a value
     */
    public static Object parse(DataType type, String text) {
        try {
            return switch (type.kind()) {
                case BOOLEAN -> parseBoolean(text);
                case INT -> Integer.parseInt(text);
                case LONG -> Long.parseLong(text);
                case FLOAT -> (float) inRange(text, Float.parseFloat(text), type);
                case DOUBLE -> inRange(text, Double.parseDouble(text), type);
                case DECIMAL -> decimal(type, new BigDecimal(text));
                case STRING -> text;
                case BYTES -> base64(text);
                case DATE -> LocalDate.parse(text);
                case TIME -> LocalTime.parse(text);
                case TIMESTAMP -> {
                    LocalDateTime fast = plainLocalDateTime(text, text.length());
                    yield fast != null ? fast : LocalDateTime.parse(text.length() > 10 && text.charAt(10) == ' '
                            ? text.substring(0, 10) + 'T' + text.substring(11) : text);
                }
                case TIMESTAMP_TZ -> {
                    LocalDateTime fast = text.endsWith("Z") ? plainLocalDateTime(text, text.length() - 1) : null;
                    yield fast != null ? fast.toInstant(ZoneOffset.UTC) : OffsetDateTime.parse(text).toInstant();
                }
                case ROW, ARRAY, MAP -> throw new IllegalArgumentException("no text form for " + type);
            };
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new IllegalArgumentException("'" + abbreviate(text) + "' is not a " + type.withNullable(true));
        }
    }

    /**
     * {@code value} at {@code type}'s scale, if that needs no rounding and the precision fits.
     *
     * @throws IllegalArgumentException saying which, if not
     */
    public static BigDecimal decimal(DataType type, BigDecimal value) {
        // Judged on the digits the value has, before any scaling: setScale of 1e-100000000 (a
        // dozen characters of input) would build a number of a hundred million digits.
        BigDecimal stripped = value.signum() == 0 ? BigDecimal.ZERO : value.stripTrailingZeros();
        if (stripped.scale() > type.scale()) {
            throw new IllegalArgumentException(shown(value) + " has more than " + type.scale()
                    + " digits after the point for " + type.withNullable(true));
        }
        if (stripped.signum() != 0 && (long) stripped.precision() - stripped.scale() > type.precision() - type.scale()) {
            throw new IllegalArgumentException(shown(value) + " has more than " + type.precision()
                    + " digits for " + type.withNullable(true));
        }
        return stripped.setScale(type.scale(), RoundingMode.UNNECESSARY);
    }

    /** A decimal as its plain digits when short, else in scientific notation, abbreviated: never megabytes of zeros. */
    private static String shown(BigDecimal value) {
        return Math.abs((long) value.scale()) <= 40 ? abbreviate(value.toPlainString()) : abbreviate(value.toString());
    }

    /**
     * {@code parsed}, the float or double that {@code text} was read as, unless the text's number is
     * beyond the type: Java's parsers give an infinity for too large a number and zero for too small
     * a one, which would change the value without a word.
     *
     * @throws IllegalArgumentException naming the text and the type
     */
    public static double inRange(String text, double parsed, DataType type) {
        boolean outOfRange = Double.isInfinite(parsed) ? !text.contains("Infinity") : parsed == 0 && hasNonZeroDigit(text);
        if (outOfRange) {
            throw new IllegalArgumentException(abbreviate(text) + " is out of range for a " + type.kind().typeName());
        }
        return parsed;
    }

    /** Whether the number written in {@code text} has a digit other than 0 before its exponent. */
    private static boolean hasNonZeroDigit(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == 'e' || c == 'E') {
                return false;
            }
            if (c >= '1' && c <= '9') {
                return true;
            }
        }
        return false;
    }

    /**
     * java.time leaves out zero seconds ({@code 10:00}); readers elsewhere (JavaScript, older
     * Pythons, some databases) expect them, so they are always written.
     */
    private static String withSeconds(String text, boolean noSeconds) {
        return noSeconds ? text + ":00" : text;
    }

    private static final int[] NANOS_PER_DIGIT = {0, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100,
        10, 1};

    /**
     * {@code text}'s first {@code end} characters as {@code yyyy-MM-ddTHH:mm[:ss[.fffffffff]]} (a
     * space for the {@code T} too), or {@code null} if they are not exactly that: the caller then asks
     * java.time's parser, which reads every other ISO 8601 form and says what is wrong. A shortcut for
     * the form every format here writes: the formatters' general parsing took a quarter of the json
     * format's time.
     */
    static LocalDateTime plainLocalDateTime(String text, int end) {
        if (end < 16 || text.charAt(4) != '-' || text.charAt(7) != '-' || text.charAt(10) != 'T' && text.charAt(10) != ' '
                || text.charAt(13) != ':') {
            return null;
        }
        int year = digits(text, 0, 4);
        int month = digits(text, 5, 7);
        int day = digits(text, 8, 10);
        int hour = digits(text, 11, 13);
        int minute = digits(text, 14, 16);
        int second = 0;
        int nano = 0;
        if (end > 16) {
            if (end < 19 || text.charAt(16) != ':') {
                return null;
            }
            second = digits(text, 17, 19);
            if (end > 19) {
                int fraction = end - 20;
                if (text.charAt(19) != '.' || fraction < 1 || fraction > 9) {
                    return null;
                }
                int value = digits(text, 20, end);
                nano = value < 0 ? -1 : value * NANOS_PER_DIGIT[fraction];
            }
        }
        if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0 || nano < 0) {
            return null;
        }
        try {
            return LocalDateTime.of(year, month, day, hour, minute, second, nano);
        } catch (DateTimeException e) {
            return null;
        }
    }

    /** The number written by the ASCII digits in [from, to), or -1 if any is not one. */
    private static int digits(String text, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static byte[] base64(String text) {
        try {
            return Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + abbreviate(text) + "' is not base64 bytes: " + e.getMessage());
        }
    }

    private static Boolean parseBoolean(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> throw new IllegalArgumentException("'" + abbreviate(text) + "' is not a boolean (true or false)");
        };
    }

    /**
     * At most 40 characters of {@code text}, with line breaks and tabs written as {@code \n},
     * {@code \r}, {@code \t}: enough to recognize a value, not enough to leak a record, and always
     * one line.
     */
    public static String abbreviate(String text) {
        String shortened = text.length() <= 40 ? text : text.substring(0, 37) + "...";
        return shortened.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t");
    }
}
