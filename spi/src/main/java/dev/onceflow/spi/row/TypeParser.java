package dev.onceflow.spi.row;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads the type syntax of {@link DataType#toString()}. A recursive descent over a grammar of a
 * dozen words, kept here so the SPI stays free of dependencies:
 *
 * <pre>
 * type   := base ("not" "null")?
 * base   := name | "decimal" "(" int "," int ")" | "array" "&lt;" type "&gt;"
 *         | "map" "&lt;" type "," type "&gt;" | "row" "&lt;" field ("," field)* "&gt;"
 * field  := (identifier | `quoted`) type
 * </pre>
 */
final class TypeParser {

    private static final Map<String, DataType> SCALARS = Map.ofEntries(
            Map.entry("boolean", DataType.BOOLEAN), Map.entry("bool", DataType.BOOLEAN),
            Map.entry("int", DataType.INT), Map.entry("integer", DataType.INT),
            Map.entry("long", DataType.LONG), Map.entry("bigint", DataType.LONG),
            Map.entry("float", DataType.FLOAT), Map.entry("double", DataType.DOUBLE),
            Map.entry("string", DataType.STRING), Map.entry("text", DataType.STRING),
            Map.entry("bytes", DataType.BYTES), Map.entry("date", DataType.DATE), Map.entry("time", DataType.TIME),
            Map.entry("timestamp", DataType.TIMESTAMP), Map.entry("timestamptz", DataType.TIMESTAMP_TZ));

    private final String text;
    private int pos;

    TypeParser(String text) {
        this.text = text == null ? "" : text;
    }

    DataType parseWhole() {
        DataType type = type();
        skipSpace();
        if (pos < text.length()) {
            throw error("unexpected '" + text.substring(pos) + "' after the type");
        }
        return type;
    }

    private DataType type() {
        DataType base = base();
        int before = pos;
        if ("not".equals(peekWord())) {
            word();
            if (!"null".equals(word())) {
                pos = before;
                throw error("expected 'not null'");
            }
            return base.notNull();
        }
        return base;
    }

    private DataType base() {
        skipSpace();
        int start = pos;
        String name = word();
        if (name.isEmpty()) {
            throw error("expected a type such as long, string, decimal(10, 2), array<int>");
        }
        try {
            switch (name) {
                case "decimal" -> {
                    expect('(');
                    int precision = number();
                    expect(',');
                    int scale = number();
                    expect(')');
                    return DataType.decimal(precision, scale);
                }
                case "array" -> {
                    expect('<');
                    DataType element = type();
                    expect('>');
                    return DataType.array(element);
                }
                case "map" -> {
                    expect('<');
                    DataType key = type();
                    expect(',');
                    DataType value = type();
                    expect('>');
                    return DataType.map(key, value);
                }
                case "row" -> {
                    expect('<');
                    List<Field> fields = new ArrayList<>();
                    do {
                        String fieldName = fieldName();
                        fields.add(new Field(fieldName, type()));
                    } while (accept(','));
                    expect('>');
                    return DataType.row(Schema.of(fields, List.of()));
                }
                case "timestamp" -> {
                    int before = pos;
                    if ("with".equals(word()) && "time".equals(word()) && "zone".equals(word())) {
                        return DataType.TIMESTAMP_TZ;
                    }
                    pos = before;
                    return DataType.TIMESTAMP;
                }
                default -> {
                    DataType scalar = SCALARS.get(name);
                    if (scalar == null) {
                        pos = start;
                        throw error("unknown type '" + name + "'; known: boolean, int, long, float, double, "
                                + "decimal(p, s), string, bytes, date, time, timestamp, timestamptz, array<t>, "
                                + "map<k, v>, row<name t, ...>");
                    }
                    return scalar;
                }
            }
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("type '")) {
                throw e;
            }
            pos = start;
            throw error(e.getMessage());
        }
    }

    private String fieldName() {
        skipSpace();
        if (pos < text.length() && text.charAt(pos) == '`') {
            StringBuilder name = new StringBuilder();
            pos++;
            while (true) {
                if (pos >= text.length()) {
                    throw error("unterminated ` in a field name");
                }
                char c = text.charAt(pos++);
                if (c == '`') {
                    if (pos < text.length() && text.charAt(pos) == '`') {
                        name.append('`');
                        pos++;
                    } else {
                        break;
                    }
                } else {
                    name.append(c);
                }
            }
            if (name.length() == 0) {
                throw error("a field name cannot be empty");
            }
            return name.toString();
        }
        int start = pos;
        while (pos < text.length() && isIdentifierPart(text.charAt(pos))) {
            pos++;
        }
        if (start == pos) {
            throw error("expected a field name");
        }
        return text.substring(start, pos);
    }

    /** The next word, lower case, consumed. */
    private String word() {
        skipSpace();
        int start = pos;
        while (pos < text.length() && Character.isLetter(text.charAt(pos))) {
            pos++;
        }
        return text.substring(start, pos).toLowerCase(Locale.ROOT);
    }

    private String peekWord() {
        int before = pos;
        String w = word();
        pos = before;
        return w;
    }

    private int number() {
        skipSpace();
        int start = pos;
        while (pos < text.length() && Character.isDigit(text.charAt(pos)) && pos - start < 9) {
            pos++;
        }
        if (start == pos) {
            throw error("expected a number");
        }
        return Integer.parseInt(text.substring(start, pos));
    }

    private void expect(char c) {
        if (!accept(c)) {
            throw error("expected '" + c + "'");
        }
    }

    private boolean accept(char c) {
        skipSpace();
        if (pos < text.length() && text.charAt(pos) == c) {
            pos++;
            return true;
        }
        return false;
    }

    private void skipSpace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("type '" + text + "': " + what + " at position " + (pos + 1));
    }

    private static boolean isIdentifierPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }

    /** {@code name} as {@link #fieldName} reads it back: as it is if it is an identifier, else in backticks. */
    static String quoteName(String name) {
        boolean plain = !name.isEmpty() && !Character.isDigit(name.charAt(0));
        for (int i = 0; plain && i < name.length(); i++) {
            plain = isIdentifierPart(name.charAt(i));
        }
        return plain ? name : '`' + name.replace("`", "``") + '`';
    }
}
