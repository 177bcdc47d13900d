package dev.onceflow.conformance.hdfs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.ConformanceCase;
import dev.onceflow.conformance.JobProcess;
import dev.onceflow.conformance.JobSpec;
import dev.onceflow.conformance.Rule;
import dev.onceflow.conformance.SinkConformanceSuite;
import dev.onceflow.conformance.SinkExternalSystem;
import dev.onceflow.conformance.TestDestination;
import dev.onceflow.runtime.fault.FaultPoints;
import dev.onceflow.spi.record.Event;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The whole sink suite against the filesystem sink writing to a real HDFS, plus faults on the
 * HDFS side: its name node restarted while a completed checkpoint's part files wait for their
 * rename, and its only data node restarted while part files are being written.
 */
class HdfsSinkConformanceTest extends SinkConformanceSuite {

    /** The suite's job, with its checkpoints and savepoints on the same HDFS. */
    @Override
    protected JobSpec jobSpec(TestDestination destination, boolean bounded) throws Exception {
        return super.jobSpec(destination, bounded).withCheckpointDirectory(
                ((SinkFixture) system()).checkpoints(destination));
    }

    @Override
    protected SinkExternalSystem externalSystem() {
        return new SinkFixture();
    }

    private SinkFixture fixture() {
        return (SinkFixture) system();
    }

    /**
     * EO-1 (2PC-3) across a name node restart: checkpoint 3 completed and the job stalls before
     * telling the sinks, so its part files are closed but not renamed while the name node goes
     * down and comes back. The renames must then happen, by the client's retries or by failing
     * over and recovering, and nothing may be lost or repeated.
     */
    @Test
    void hdfs_nameNodeRestartBetweenPreCommitAndCommit() throws Exception {
        newCase("hdfs_nameNodeRestartBetweenPreCommitAndCommit", true).assertExactlyOnceAcross("name node restarted",
                FaultPoints.COORDINATOR_AFTER_COMPLETE_BEFORE_NOTIFY, 3, 2000, () -> fixture().cluster().restartNameNode());
    }

    /**
     * EO-1 across a data node restart while the sinks write: with one data node, the open part
     * files' write pipelines break, pre-commit fails, and the job fails over and replays from the
     * last checkpoint. The files of the failed attempt must not survive, and nothing committed
     * may be lost.
     */
    @Test
    void hdfs_dataNodeRestartedMidWrite() throws Exception {
        ConformanceCase c = newCase("hdfs_dataNodeRestartedMidWrite", true);
        JobProcess job = c.start("latest", JobProcess.Faults.NONE);
        String output = fixture().output(c.destination());
        Awaitility.await("part files being written").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(10))
                .until(() -> !fixture().hiddenFiles(output).isEmpty() || !job.isAlive());
        assertThat(job.isAlive()).as("[%s] the job ended before writing a part file; log:%n%s",
                c.destination().name(), job.tail()).isTrue();
        fixture().cluster().restartDataNode(0);
        int status = job.await(5);
        c.countCrash("data node restarted while part files were open (job exit " + status + ")");
        c.finish();
        c.assertExactlyOnce(Rule.EO_1);
    }

    /** Each case writes into a directory of its own on HDFS. */
    static final class SinkFixture extends HdfsFixture implements SinkExternalSystem {

        @Override
        public String sinkIdentifier() {
            return "filesystem";
        }

        @Override
        public Map<String, Object> sinkOptions(TestDestination destination) {
            return Map.of("path", output(destination));
        }

        @Override
        public List<Event> readCommitted(TestDestination destination) throws Exception {
            return readVisible(output(destination));
        }

        @Override
        public List<String> leftovers(TestDestination destination) throws Exception {
            return hiddenFiles(output(destination));
        }

        String output(TestDestination destination) {
            return uri(destination, "output");
        }
    }
}
