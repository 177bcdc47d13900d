package dev.onceflow.spi.record;

import java.util.ArrayList;
import java.util.List;

/**
 * The line format of {@link Event}s in text files: four comma-separated fields
 * {@code id,key,count,payload}. Fields containing a comma, a quote or a line break are quoted
 * with double quotes, and quotes inside them doubled (RFC 4180), so every event round-trips.
 */
public final class EventFormat {

    private EventFormat() {
    }

    /** One line, without a line terminator. */
    public static String toLine(Event event) {
        return quote(event.id()) + ',' + quote(event.key()) + ',' + event.count() + ',' + quote(event.payload());
    }

    /**
     * Parses a line written by {@link #toLine}.
     *
     * @throws IllegalArgumentException naming what is wrong, if the line is not four fields or
     *     the count is not a number
     */
    public static Event parse(String line) {
        List<String> fields = split(line);
        if (fields.size() != 4) {
            throw new IllegalArgumentException("expected 4 fields id,key,count,payload but found "
                    + fields.size() + " in line: " + abbreviate(line));
        }
        long count;
        try {
            count = Long.parseLong(fields.get(2));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("count '" + fields.get(2) + "' is not a number in line: " + abbreviate(line));
        }
        return new Event(fields.get(0), fields.get(1), fields.get(3), count);
    }

    private static String quote(String field) {
        if (field.indexOf(',') < 0 && field.indexOf('"') < 0 && field.indexOf('\n') < 0 && field.indexOf('\r') < 0) {
            return field;
        }
        return '"' + field.replace("\"", "\"\"") + '"';
    }

    private static List<String> split(String line) {
        List<String> fields = new ArrayList<>(4);
        StringBuilder current = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    current.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    current.append(c);
                }
            } else if (c == '"' && current.length() == 0) {
                quoted = true;
            } else if (c == ',') {
                fields.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        if (quoted) {
            throw new IllegalArgumentException("unterminated quote in line: " + abbreviate(line));
        }
        fields.add(current.toString());
        return fields;
    }

    private static String abbreviate(String line) {
        return line.length() <= 80 ? line : line.substring(0, 77) + "...";
    }
}
