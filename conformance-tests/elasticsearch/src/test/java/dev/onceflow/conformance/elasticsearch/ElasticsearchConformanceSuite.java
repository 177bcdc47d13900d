package dev.onceflow.conformance.elasticsearch;

import dev.onceflow.conformance.SinkConformanceSuite;
import dev.onceflow.conformance.SinkExternalSystem;
import dev.onceflow.runtime.fault.FaultPoints;
import org.junit.jupiter.api.Test;

/** The sink suite plus a fault on Elasticsearch's side, for each mode of the Elasticsearch sink. */
abstract class ElasticsearchConformanceSuite extends SinkConformanceSuite {

    /** The sink's {@code mode} option under test. */
    protected abstract String mode();

    /** The sink's {@code document-id} option under test. */
    protected String documentId() {
        return "id";
    }

    @Override
    protected final SinkExternalSystem externalSystem() {
        return new ElasticsearchFixture(mode(), documentId());
    }

    /**
     * EO-1 across a node restart: checkpoint 3 completed and the job stalls before telling the
     * sinks, so its documents are flushed but the job has not moved on (idempotent) or still wait in
     * the checkpoint to be sent (write-ahead), while the node stops and starts again. The sink must
     * retry or fail over and replay, and lose or repeat nothing.
     */
    @Test
    void elasticsearch_nodeRestartBetweenWriteAndCommit() throws Exception {
        newCase("elasticsearch_nodeRestartBetweenWriteAndCommit", true).assertExactlyOnceAcross("node restarted",
                FaultPoints.COORDINATOR_AFTER_COMPLETE_BEFORE_NOTIFY, 3, 8000,
                () -> ((ElasticsearchFixture) system()).restartNode());
    }
}
