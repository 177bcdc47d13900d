package dev.onceflow.conformance.file;

import dev.onceflow.conformance.SourceConformanceSuite;
import dev.onceflow.conformance.SourceExternalSystem;
import dev.onceflow.conformance.TestDestination;
import dev.onceflow.spi.record.Event;
import java.util.List;
import java.util.Map;

/**
 * The source suite against datagen. Datagen makes its own input: the fixture checks that what the
 * suite asks for is exactly what datagen generates (ids 0..n-1, key-(id % 7)).
 */
class DatagenSourceConformanceTest extends SourceConformanceSuite {

    @Override
    protected SourceExternalSystem externalSystem() {
        return new GeneratedInput();
    }

    static class GeneratedInput implements SourceExternalSystem {

        private final Map<String, Long> rows = new java.util.HashMap<>();

        @Override
        public void start() {
        }

        @Override
        public void close() {
        }

        @Override
        public String sourceIdentifier() {
            return "datagen";
        }

        @Override
        public Map<String, Object> sourceOptions(TestDestination destination, boolean bounded) {
            return Map.of("rows", rows.get(destination.name()), "keys", 7, "splits", 4);
        }

        @Override
        public void writeInput(TestDestination destination, List<Event> events) {
            long next = rows.getOrDefault(destination.name(), 0L);
            for (Event event : events) {
                if (!event.id().equals(Long.toString(next)) || !event.key().equals("key-" + (next % 7))) {
                    throw new IllegalArgumentException("datagen cannot produce " + event + " at position " + next);
                }
                next++;
            }
            rows.put(destination.name(), next);
        }

        @Override
        public boolean discoversInputWhileRunning() {
            return false;
        }
    }
}
