package dev.onceflow.conformance;

import dev.onceflow.spi.record.Event;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The oracle's finding for one case: which expected record ids are missing, which appear more than
 * once, which were never written, which keys have wrong running counts, and what was left behind.
 */
public record Verdict(long expectedRecords, long committedRecords, SortedSet<String> lost, SortedSet<String> duplicated,
        SortedSet<String> unexpected, SortedMap<String, String> wrongCounts, List<String> leftovers) {

    /** What the datagen source emits with {@code rows} and {@code keys}: id {@code n} -> {@code key-<n % keys>}. */
    public static Map<String, String> datagenInput(long rows, int keys) {
        Map<String, String> expected = new LinkedHashMap<>();
        for (long id = 0; id < rows; id++) {
            expected.put(Long.toString(id), "key-" + (id % keys));
        }
        return expected;
    }

    /**
     * Judges committed output of a {@code count-by-key} job against the input ids and keys.
     *
     * @param expected id -> key of every input record
     */
    public static Verdict of(Map<String, String> expected, Collection<Event> committed, List<String> leftovers) {
        Map<String, Integer> seen = new HashMap<>();
        Map<String, List<Long>> counts = new HashMap<>();
        for (Event event : committed) {
            seen.merge(event.id(), 1, Integer::sum);
            counts.computeIfAbsent(event.key(), k -> new ArrayList<>()).add(event.count());
        }
        SortedSet<String> lost = new TreeSet<>(Verdict::byNumber);
        SortedSet<String> duplicated = new TreeSet<>(Verdict::byNumber);
        SortedSet<String> unexpected = new TreeSet<>(Verdict::byNumber);
        Map<String, Long> perKey = new HashMap<>();
        expected.forEach((id, key) -> {
            perKey.merge(key, 1L, Long::sum);
            if (!seen.containsKey(id)) {
                lost.add(id);
            }
        });
        seen.forEach((id, n) -> {
            if (!expected.containsKey(id)) {
                unexpected.add(id);
            } else if (n > 1) {
                duplicated.add(id);
            }
        });
        SortedMap<String, String> wrong = new TreeMap<>();
        perKey.forEach((key, n) -> {
            List<Long> values = new ArrayList<>(counts.getOrDefault(key, List.of()));
            values.sort(null);
            boolean exact = values.size() == n;
            for (int i = 0; exact && i < values.size(); i++) {
                exact = values.get(i) == i + 1;
            }
            if (!exact) {
                wrong.put(key, "counts " + abbreviate(values) + " instead of 1.." + n);
            }
        });
        return new Verdict(expected.size(), committed.size(), lost, duplicated, unexpected, wrong, List.copyOf(leftovers));
    }

    /** Every id once, every count right, nothing left behind. */
    public boolean exactlyOnce() {
        return lost.isEmpty() && duplicated.isEmpty() && unexpected.isEmpty() && wrongCounts.isEmpty() && leftovers.isEmpty();
    }

    /** Nothing lost (duplicates allowed). */
    public boolean atLeastOnce() {
        return lost.isEmpty() && unexpected.isEmpty();
    }

    public String describe() {
        return "expected " + expectedRecords + " records, committed " + committedRecords + "; lost " + lost.size() + " "
                + first(lost) + ", duplicated " + duplicated.size() + " " + first(duplicated) + ", unexpected "
                + unexpected.size() + " " + first(unexpected) + ", keys with wrong running counts " + wrongCounts
                + ", left behind " + leftovers;
    }

    private static String first(SortedSet<String> ids) {
        return ids.isEmpty() ? "" : ids.stream().limit(10).toList() + (ids.size() > 10 ? "..." : "");
    }

    private static String abbreviate(List<Long> values) {
        return values.size() <= 6 ? values.toString() : "[" + values.size() + " values, last " + values.get(values.size() - 1) + "]";
    }

    private static int byNumber(String a, String b) {
        try {
            return Long.compare(Long.parseLong(a), Long.parseLong(b));
        } catch (NumberFormatException e) {
            return a.compareTo(b);
        }
    }
}
