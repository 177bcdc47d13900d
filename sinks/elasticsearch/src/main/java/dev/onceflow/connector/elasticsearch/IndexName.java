package dev.onceflow.connector.elasticsearch;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The target index of a record, from a pattern such as {@code orders}, {@code orders-{key}} or
 * {@code orders-{yyyy.MM.dd}}. {@code {key}} is the text of the record's {@code key} field in lower
 * case (index names must be lower case); any other placeholder is a {@link DateTimeFormatter} pattern applied, in UTC, to
 * the time of the checkpoint that holds the record. That time is stored with the write-ahead
 * segment, so a replay on another day writes to the same index; the idempotent mode has no such
 * time and refuses date placeholders.
 */
final class IndexName {

    /** Characters Elasticsearch forbids in index names, besides upper case. */
    private static final String FORBIDDEN = "\\/*?\"<>| ,#:";

    private final String pattern;
    private final List<Object> parts; // String literals, KEY, or DateTimeFormatter
    private final boolean usesDate;
    private final boolean usesKey;
    private long lastTimestamp = Long.MIN_VALUE;
    private String lastDates;

    private static final Object KEY = new Object();

    private IndexName(String pattern, List<Object> parts) {
        this.pattern = pattern;
        this.parts = parts;
        this.usesDate = parts.stream().anyMatch(p -> p instanceof DateTimeFormatter);
        this.usesKey = parts.contains(KEY);
    }

    /**
     * Parses a pattern.
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    static IndexName parse(String pattern) {
        List<Object> parts = new ArrayList<>();
        int i = 0;
        while (i < pattern.length()) {
            int open = pattern.indexOf('{', i);
            if (open < 0) {
                parts.add(literal(pattern.substring(i)));
                break;
            }
            if (open > i) {
                parts.add(literal(pattern.substring(i, open)));
            }
            int close = pattern.indexOf('}', open);
            if (close < 0) {
                throw new IllegalArgumentException("unclosed '{' at position " + open);
            }
            String placeholder = pattern.substring(open + 1, close);
            if (placeholder.equals("key")) {
                parts.add(KEY);
            } else if (placeholder.isEmpty()) {
                throw new IllegalArgumentException("empty placeholder {} at position " + open);
            } else {
                try {
                    parts.add(DateTimeFormatter.ofPattern(placeholder, Locale.ROOT).withZone(ZoneOffset.UTC));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("{" + placeholder + "} is neither {key} nor a date pattern such as "
                            + "{yyyy.MM.dd}: " + e.getMessage());
                }
            }
            i = close + 1;
        }
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("the index name is empty");
        }
        if (parts.get(0) instanceof String first && (first.startsWith("-") || first.startsWith("_")
                || first.startsWith("+") || first.equals(".") || first.equals(".."))) {
            throw new IllegalArgumentException("an index name cannot start with '-', '_' or '+'");
        }
        return new IndexName(pattern, List.copyOf(parts));
    }

    private static String literal(String text) {
        for (char c : text.toCharArray()) {
            if (Character.isUpperCase(c) || FORBIDDEN.indexOf(c) >= 0) {
                throw new IllegalArgumentException("'" + c + "' is not allowed in an index name (lower case, none of "
                        + FORBIDDEN + " and no spaces)");
            }
        }
        return text;
    }

    /** Whether the pattern has date placeholders, which need the checkpoint's time. */
    boolean usesDate() {
        return usesDate;
    }

    /** Whether the pattern has {@code {key}}, which needs a {@code key} field. */
    boolean usesKey() {
        return usesKey;
    }

    /** Whether every record goes to the same index. */
    boolean isConstant() {
        return !usesDate && !usesKey;
    }

    /**
     * The index of a record whose {@code key} field reads {@code key} (null when the pattern has no
     * {@code {key}}), held by the checkpoint taken at {@code checkpointMillis}. Called
     * on one thread (a writer's task thread); it caches the date parts of the last timestamp, which
     * all records of a segment share.
     */
    String resolve(String key, long checkpointMillis) {
        if (isConstant()) {
            return pattern;
        }
        if (usesDate && checkpointMillis != lastTimestamp) {
            StringBuilder dates = new StringBuilder();
            Instant at = Instant.ofEpochMilli(checkpointMillis);
            for (Object part : parts) {
                if (part instanceof DateTimeFormatter format) {
                    dates.append(format.format(at).toLowerCase(Locale.ROOT)).append('\u0000');
                }
            }
            lastDates = dates.toString();
            lastTimestamp = checkpointMillis;
        }
        StringBuilder name = new StringBuilder(pattern.length() + 16);
        int date = 0;
        for (Object part : parts) {
            if (part == KEY) {
                name.append(key.toLowerCase(Locale.ROOT));
            } else if (part instanceof DateTimeFormatter) {
                int end = lastDates.indexOf('\u0000', date);
                name.append(lastDates, date, end);
                date = end + 1;
            } else {
                name.append((String) part);
            }
        }
        return name.toString();
    }

    @Override
    public String toString() {
        return pattern;
    }
}
