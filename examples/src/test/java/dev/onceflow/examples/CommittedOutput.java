package dev.onceflow.examples;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * What a committed reader sees in the filesystem sink's directory (visible part files only), and
 * the exactly-once verdict of a keyed-count job over datagen ids {@code 0..rows-1}.
 */
final class CommittedOutput {

    final Map<String, Integer> occurrences = new HashMap<>();
    final Map<String, List<Long>> countsByKey = new TreeMap<>();
    final List<Path> inProgressFiles = new ArrayList<>();
    long lines;

    static CommittedOutput read(Path directory) throws IOException {
        CommittedOutput output = new CommittedOutput();
        if (!Files.isDirectory(directory)) {
            return output;
        }
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.sorted().toList()) {
                String name = file.getFileName().toString();
                if (name.startsWith(".") || name.startsWith("_")) {
                    output.inProgressFiles.add(file);
                    continue;
                }
                try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                    String line;
                    while ((line = reader.readLine()) != null) {
                        Event event = EventFormat.parse(line);
                        output.lines++;
                        output.occurrences.merge(event.id(), 1, Integer::sum);
                        output.countsByKey.computeIfAbsent(event.key(), k -> new ArrayList<>()).add(event.count());
                    }
                }
            }
        }
        return output;
    }

    /** Ids of {@code 0..rows-1} that are missing. */
    TreeSet<Long> lost(long rows) {
        TreeSet<Long> lost = new TreeSet<>();
        for (long id = 0; id < rows; id++) {
            if (!occurrences.containsKey(Long.toString(id))) {
                lost.add(id);
            }
        }
        return lost;
    }

    /** Ids seen more than once. */
    TreeSet<Long> duplicated() {
        TreeSet<Long> duplicated = new TreeSet<>();
        occurrences.forEach((id, n) -> {
            if (n > 1) {
                duplicated.add(Long.parseLong(id));
            }
        });
        return duplicated;
    }

    /**
     * Keys whose emitted running counts are not exactly {@code 1..n} with {@code n} the number of
     * datagen ids with that key: lost or doubled keyed state shows up here.
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

    String summary(long rows, int keys) {
        TreeSet<Long> lost = lost(rows);
        TreeSet<Long> dup = duplicated();
        return "lines=" + lines + ", lost=" + lost.size() + " " + head(lost) + ", duplicated=" + dup.size() + " "
                + head(dup) + ", wrong counts=" + wrongCounts(rows, keys) + ", in-progress files=" + inProgressFiles;
    }

    private static String head(TreeSet<Long> ids) {
        return ids.stream().limit(10).toList().toString();
    }
}
