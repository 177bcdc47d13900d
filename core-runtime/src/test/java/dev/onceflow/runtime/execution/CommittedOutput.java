package dev.onceflow.runtime.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a committed reader of the filesystem sink's directories sees (visible part files only),
 * and the exactly-once verdict for a keyed count over datagen ids {@code 0..rows-1}: each id
 * once, and per key the running counts exactly {@code 1..n}.
 */
final class CommittedOutput {

    private static final Pattern PART = Pattern.compile("part-(\\d+)-(\\d+)-(.+)");

    final Map<String, Integer> occurrences = new HashMap<>();
    final List<Event> events = new ArrayList<>();
    final Map<String, List<Long>> countsByKey = new TreeMap<>();
    final List<String> hiddenFiles = new ArrayList<>();
    final Set<Integer> subtasks = new TreeSet<>();
    final Set<Long> checkpoints = new TreeSet<>();
    final Set<String> attempts = new TreeSet<>();
    long lines;

    /** Whether the sink has committed a part file in {@code directory} yet. */
    static boolean hasCommittedFile(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return false;
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.anyMatch(f -> !f.getFileName().toString().startsWith("."));
        }
    }

    /**
     * Asserts the verdict of a {@link KeyedCountJob} over ids {@code 0..rows-1}: every id once,
     * exact running counts per key, no in-progress file left.
     */
    void assertExactlyOnce(long rows) {
        assertThat(lost(rows)).as("lost ids; %s", summary(rows)).isEmpty();
        assertThat(duplicated()).as("duplicated ids; %s", summary(rows)).isEmpty();
        assertThat(unexpected(rows)).as("unexpected ids").isEmpty();
        assertThat(lines).isEqualTo(rows);
        assertThat(wrongCounts(rows, KeyedCountJob.KEYS)).as("keys with lost or doubled state").isEmpty();
        assertThat(hiddenFiles).as("in-progress files left behind").isEmpty();
    }

    static CommittedOutput read(Path... directories) throws IOException {
        CommittedOutput output = new CommittedOutput();
        for (Path directory : directories) {
            if (!Files.isDirectory(directory)) {
                continue;
            }
            try (Stream<Path> files = Files.list(directory)) {
                for (Path file : files.sorted().toList()) {
                    output.add(file);
                }
            }
        }
        return output;
    }

    private void add(Path file) throws IOException {
        String name = file.getFileName().toString();
        if (name.startsWith(".") || name.startsWith("_")) {
            hiddenFiles.add(name);
            return;
        }
        Matcher m = PART.matcher(name);
        if (!m.matches()) {
            throw new AssertionError("unexpected file in the sink's directory: " + file);
        }
        subtasks.add(Integer.parseInt(m.group(1)));
        checkpoints.add(Long.parseLong(m.group(2)));
        attempts.add(m.group(3));
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            Event event = EventFormat.parse(line);
            lines++;
            events.add(event);
            occurrences.merge(event.id(), 1, Integer::sum);
            countsByKey.computeIfAbsent(event.key(), k -> new ArrayList<>()).add(event.count());
        }
    }

    /** Ids of {@code 0..rows-1} not in the output. */
    TreeSet<Long> lost(long rows) {
        TreeSet<Long> lost = new TreeSet<>();
        for (long id = 0; id < rows; id++) {
            if (!occurrences.containsKey(Long.toString(id))) {
                lost.add(id);
            }
        }
        return lost;
    }

    /** Ids in the output more than once. */
    TreeSet<Long> duplicated() {
        TreeSet<Long> duplicated = new TreeSet<>();
        occurrences.forEach((id, n) -> {
            if (n > 1) {
                duplicated.add(Long.parseLong(id));
            }
        });
        return duplicated;
    }

    /** Ids in the output outside {@code 0..rows-1}. */
    TreeSet<String> unexpected(long rows) {
        TreeSet<String> unexpected = new TreeSet<>();
        for (String id : occurrences.keySet()) {
            long value = Long.parseLong(id);
            if (value < 0 || value >= rows) {
                unexpected.add(id);
            }
        }
        return unexpected;
    }

    /**
     * Keys whose running counts are not exactly {@code 1..n}, {@code n} being the number of ids
     * with that key: lost or doubled keyed state shows up here even when delivery is exact.
     */
    Map<String, String> wrongCounts(long rows, int keys) {
        Map<String, String> wrong = new TreeMap<>();
        for (int k = 0; k < keys; k++) {
            String key = "key-" + k;
            long expected = rows / keys + (k < rows % keys ? 1 : 0);
            List<Long> counts = new ArrayList<>(countsByKey.getOrDefault(key, List.of()));
            counts.sort(null);
            boolean exact = counts.size() == expected;
            for (int i = 0; exact && i < counts.size(); i++) {
                exact = counts.get(i) == i + 1;
            }
            if (!exact) {
                wrong.put(key, counts.size() + " counts, max " + (counts.isEmpty() ? 0 : counts.get(counts.size() - 1))
                        + ", expected 1.." + expected);
            }
        }
        return wrong;
    }

    /** Keys whose counts in this output are not exactly {@code 1..m} for the m records of the key seen here. */
    Map<String, List<Long>> countsNotStartingAtOne() {
        Map<String, List<Long>> wrong = new TreeMap<>();
        countsByKey.forEach((key, counts) -> {
            List<Long> sorted = new ArrayList<>(counts);
            sorted.sort(null);
            for (int i = 0; i < sorted.size(); i++) {
                if (sorted.get(i) != i + 1) {
                    wrong.put(key, sorted);
                    return;
                }
            }
        });
        return wrong;
    }

    String summary(long rows) {
        return "lines=" + lines + ", lost=" + lost(rows).size() + " " + head(lost(rows)) + ", duplicated="
                + duplicated().size() + " " + head(duplicated()) + ", hidden files=" + hiddenFiles;
    }

    private static String head(TreeSet<Long> ids) {
        return ids.stream().limit(10).toList().toString();
    }
}
