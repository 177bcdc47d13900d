package dev.onceflow.conformance.hdfs;

import dev.onceflow.conformance.JobSpec;
import dev.onceflow.conformance.SourceConformanceSuite;
import dev.onceflow.conformance.SourceExternalSystem;
import dev.onceflow.conformance.TestDestination;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;

/** The whole source suite against the file source reading a directory on a real HDFS. */
class HdfsFileSourceConformanceTest extends SourceConformanceSuite {

    /** The suite's job, with its checkpoints and savepoints on the same HDFS. */
    @Override
    protected JobSpec jobSpec(TestDestination destination, boolean bounded) throws Exception {
        return super.jobSpec(destination, bounded).withCheckpointDirectory(
                ((InputFixture) system()).checkpoints(destination));
    }

    @Override
    protected SourceExternalSystem externalSystem() {
        return new InputFixture();
    }

    /** Each batch of input is a new file, so every batch is a new split. */
    static final class InputFixture extends HdfsFixture implements SourceExternalSystem {

        private final Map<String, Integer> files = new HashMap<>();

        @Override
        public String sourceIdentifier() {
            return "file";
        }

        @Override
        public Map<String, Object> sourceOptions(TestDestination destination, boolean bounded) {
            String input = uri(destination, "input");
            return bounded ? Map.of("path", input) : Map.of("path", input, "discovery-interval", "200ms");
        }

        @Override
        public void writeInput(TestDestination destination, List<Event> events) throws Exception {
            Path dir = new Path(uri(destination, "input"));
            fs().mkdirs(dir);
            int n = files.merge(destination.name(), 1, Integer::sum);
            // Written hidden, then renamed: the source must never see a half-written file.
            Path temp = new Path(dir, ".batch-" + n + ".tmp");
            try (FSDataOutputStream out = fs().create(temp, false)) {
                for (Event event : events) {
                    out.write((EventFormat.toLine(event) + "\n").getBytes(StandardCharsets.UTF_8));
                }
            }
            Path target = new Path(dir, "batch-" + n + ".txt");
            if (!fs().rename(temp, target)) {
                throw new IllegalStateException("could not rename " + temp + " to " + target);
            }
        }
    }
}
