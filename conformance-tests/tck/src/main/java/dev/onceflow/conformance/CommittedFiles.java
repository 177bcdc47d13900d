package dev.onceflow.conformance;

import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Reads a directory of the filesystem sink as a committed reader does: visible files only, one
 * event per line. Hidden files ({@code .} or {@code _}) are in-progress data that must not linger.
 */
public final class CommittedFiles {

    private CommittedFiles() {
    }

    public static List<Event> read(Path directory) throws IOException {
        List<Event> events = new ArrayList<>();
        for (String line : lines(directory)) {
            events.add(EventFormat.parse(line));
        }
        return events;
    }

    /** The lines of the visible files, file by file in name order: the records a committed reader sees. */
    public static List<String> lines(Path directory) throws IOException {
        List<String> lines = new ArrayList<>();
        for (Path file : files(directory)) {
            if (!hidden(file)) {
                try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                    String line;
                    while ((line = reader.readLine()) != null) {
                        lines.add(line);
                    }
                }
            }
        }
        return lines;
    }

    public static List<String> inProgress(Path directory) throws IOException {
        List<String> leftovers = new ArrayList<>();
        for (Path file : files(directory)) {
            if (hidden(file)) {
                leftovers.add("in-progress file " + file);
            }
        }
        return leftovers;
    }

    private static List<Path> files(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(Files::isRegularFile).sorted().toList();
        }
    }

    private static boolean hidden(Path file) {
        String name = file.getFileName().toString();
        return name.startsWith(".") || name.startsWith("_");
    }
}
