package dev.onceflow.conformance.file;

import dev.onceflow.conformance.SourceConformanceSuite;
import dev.onceflow.conformance.SourceExternalSystem;
import dev.onceflow.conformance.TestDestination;
import java.util.HashMap;
import java.util.Map;

/**
 * The source suite against datagen with {@code split-assignment: on-demand}: splits reach readers
 * as they ask, so the suite's crashes also fall between a request, its assignment and the
 * checkpoint that must hold the split exactly once, in the enumerator's state or a reader's.
 */
class DatagenOnDemandSourceConformanceTest extends SourceConformanceSuite {

    @Override
    protected SourceExternalSystem externalSystem() {
        return new DatagenSourceConformanceTest.GeneratedInput() {
            @Override
            public Map<String, Object> sourceOptions(TestDestination destination, boolean bounded) {
                Map<String, Object> options = new HashMap<>(super.sourceOptions(destination, bounded));
                options.put("split-assignment", "on-demand");
                return options;
            }
        };
    }
}
