package dev.onceflow.conformance.filesystem;

import dev.onceflow.conformance.CommittedFiles;
import dev.onceflow.conformance.SinkConformanceSuite;
import dev.onceflow.conformance.SinkExternalSystem;
import dev.onceflow.conformance.TestDestination;
import dev.onceflow.spi.record.Event;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The whole sink suite against the filesystem sink on local disk: this fixture is all it takes. */
class FileSystemSinkConformanceTest extends SinkConformanceSuite {

    @Override
    protected SinkExternalSystem externalSystem() {
        return new LocalDirectoryFixture();
    }

    /** Local disk needs no server: each case writes into a directory of its own. */
    static class LocalDirectoryFixture implements SinkExternalSystem {

        @Override
        public void start() {
        }

        @Override
        public void close() {
        }

        @Override
        public String sinkIdentifier() {
            return "filesystem";
        }

        @Override
        public Map<String, Object> sinkOptions(TestDestination destination) {
            return Map.of("path", output(destination).toString());
        }

        @Override
        public List<Event> readCommitted(TestDestination destination) throws Exception {
            return CommittedFiles.read(output(destination));
        }

        @Override
        public List<String> leftovers(TestDestination destination) throws Exception {
            return CommittedFiles.inProgress(output(destination));
        }

        static Path output(TestDestination destination) {
            return destination.workDirectory().resolve("output");
        }
    }
}
