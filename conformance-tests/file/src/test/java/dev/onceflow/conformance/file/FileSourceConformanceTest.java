package dev.onceflow.conformance.file;

import dev.onceflow.conformance.SourceConformanceSuite;
import dev.onceflow.conformance.SourceExternalSystem;
import dev.onceflow.conformance.TestDestination;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The whole source suite against the file source on local disk. */
class FileSourceConformanceTest extends SourceConformanceSuite {

    @Override
    protected SourceExternalSystem externalSystem() {
        return new InputDirectoryFixture();
    }

    /** Each batch of input is a new file, so every batch is a new split. */
    static final class InputDirectoryFixture implements SourceExternalSystem {

        private final Map<String, Integer> files = new HashMap<>();

        @Override
        public void start() {
        }

        @Override
        public void close() {
        }

        @Override
        public String sourceIdentifier() {
            return "file";
        }

        @Override
        public Map<String, Object> sourceOptions(TestDestination destination, boolean bounded) {
            return bounded ? Map.of("path", input(destination).toString())
                    : Map.of("path", input(destination).toString(), "discovery-interval", "200ms");
        }

        @Override
        public void writeInput(TestDestination destination, List<Event> events) throws Exception {
            Path dir = Files.createDirectories(input(destination));
            int n = files.merge(destination.name(), 1, Integer::sum);
            StringBuilder text = new StringBuilder();
            for (Event event : events) {
                text.append(EventFormat.toLine(event)).append('\n');
            }
            // Written hidden, then renamed: the source must never see a half-written file.
            Path temp = dir.resolve(".batch-" + n + ".tmp");
            Files.writeString(temp, text, StandardCharsets.UTF_8);
            Files.move(temp, dir.resolve("batch-" + n + ".txt"), StandardCopyOption.ATOMIC_MOVE);
        }

        private static Path input(TestDestination destination) {
            return destination.workDirectory().resolve("input");
        }
    }
}
