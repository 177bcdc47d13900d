package com.example.recordfiles;

import dev.onceflow.conformance.SinkConformanceSuite;
import dev.onceflow.conformance.SinkExternalSystem;
import dev.onceflow.conformance.TestDestination;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Onceflow's conformance suite against the {@code record-files} sink: the suite brings every case
 * (crashes at each step of the commit protocol, random kills, rescaling); this class only says how
 * to point the sink at a fresh place and how to read back what it committed.
 */
class RecordFilesSinkConformanceTest extends SinkConformanceSuite {

    @Override
    protected SinkExternalSystem externalSystem() {
        return new LocalDirectory();
    }

    /** The "external system" of this sink is a local directory: nothing to start or stop. */
    static final class LocalDirectory implements SinkExternalSystem {

        @Override
        public void start() {
        }

        @Override
        public void close() {
        }

        @Override
        public String sinkIdentifier() {
            return "record-files";
        }

        @Override
        public Map<String, Object> sinkOptions(TestDestination destination) {
            return Map.of("directory", output(destination).toString());
        }

        /** Every complete file, as a reader of the directory sees it. */
        @Override
        public List<Event> readCommitted(TestDestination destination) throws IOException {
            List<Event> events = new ArrayList<>();
            for (Path file : files(destination)) {
                String content = Files.readString(file);
                if (content.endsWith("\n")) {
                    events.add(EventFormat.parse(content.substring(0, content.length() - 1)));
                }
            }
            return events;
        }

        /** A file without its final line break: a write that a crash cut short and no replay repaired. */
        @Override
        public List<String> leftovers(TestDestination destination) throws IOException {
            List<String> torn = new ArrayList<>();
            for (Path file : files(destination)) {
                if (!Files.readString(file).endsWith("\n")) {
                    torn.add("torn file " + file);
                }
            }
            return torn;
        }

        private static Path output(TestDestination destination) {
            return destination.workDirectory().resolve("output");
        }

        private static List<Path> files(TestDestination destination) throws IOException {
            Path directory = output(destination);
            if (!Files.isDirectory(directory)) {
                return List.of();
            }
            try (Stream<Path> files = Files.list(directory)) {
                return files.sorted().toList();
            }
        }
    }
}
