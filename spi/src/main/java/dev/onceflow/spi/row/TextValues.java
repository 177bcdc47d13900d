package dev.onceflow.spi.row;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
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
 *       Seconds and fractions are written only as far as they are not zero.</li>
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
            case DATE, TIME, TIMESTAMP -> value.toString();
            case TIMESTAMP_TZ -> DateTimeFormatter.ISO_INSTANT.format((Instant) value);
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
                case FLOAT -> Float.parseFloat(text);
                case DOUBLE -> Double.parseDouble(text);
                case DECIMAL -> decimal(type, new BigDecimal(text));
                case STRING -> text;
                case BYTES -> base64(text);
                case DATE -> LocalDate.parse(text);
                case TIME -> LocalTime.parse(text);
                case TIMESTAMP -> LocalDateTime.parse(text.length() > 10 && text.charAt(10) == ' '
                        ? text.substring(0, 10) + 'T' + text.substring(11) : text);
                case TIMESTAMP_TZ -> OffsetDateTime.parse(text).toInstant();
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
        BigDecimal scaled;
        try {
            scaled = value.setScale(type.scale(), RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(value.toPlainString() + " has more than " + type.scale()
                    + " digits after the point for " + type.withNullable(true));
        }
        if (scaled.precision() > type.precision()) {
            throw new IllegalArgumentException(value.toPlainString() + " has more than " + type.precision()
                    + " digits for " + type.withNullable(true));
        }
        return scaled;
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

    /** At most 40 characters of {@code text}: enough to recognize a value, not enough to leak a record. */
    public static String abbreviate(String text) {
        return text.length() <= 40 ? text : text.substring(0, 37) + "...";
    }
}
