package dev.onceflow.conformance.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.CaseResult;
import dev.onceflow.conformance.ConformanceReport;
import dev.onceflow.conformance.SelectedCase;
import dev.onceflow.runtime.fault.FaultPoints;
import org.junit.jupiter.api.Test;

/**
 * Shows the combination that is not exactly-once: the write-ahead mode with ids chosen by
 * Elasticsearch ({@code document-id: auto}). Halting the job after a segment was sent and before
 * its marker was written makes the replay send it again, and without deterministic ids every
 * resent document is a second copy. The suite must report exactly that: duplicates under EO-1,
 * nothing lost, guarantee at-least-once. The same case passes with record ids
 * ({@link ElasticsearchWriteAheadSinkConformanceTest}).
 */
class WriteAheadWithAutoIdsIsAtLeastOnceTest {

    /** The write-ahead suite with auto ids; nested, so surefire runs it only through this test. */
    static class AutoIdsSuite extends ElasticsearchConformanceSuite {

        @Override
        protected String mode() {
            return "write-ahead";
        }

        @Override
        protected String documentId() {
            return "auto";
        }
    }

    @Test
    void aCrashBetweenSendAndMarkerDuplicatesTheSegment() throws Exception {
        int walAfterSend = FaultPoints.ALL.stream().filter(p -> !p.equals(FaultPoints.SINK_DURING_RECOVERY)).toList()
                .indexOf(FaultPoints.SINK_WAL_AFTER_SEND) + 1;
        SelectedCase run = SelectedCase.run(SelectedCase.dynamicTest(AutoIdsSuite.class,
                "required_eo1_crashAtEveryFaultPoint", walAfterSend), "sink-elasticsearch-write-ahead-auto-ids");
        assertThat(run.failureMessage()).startsWith("[EO-1] ").contains("sink.wal-after-send")
                .containsPattern("duplicated [1-9]").contains("lost 0 ,");
        // One case of the suite ran: the report claims nothing, and shows what that case found.
        assertThat(run.report().guarantee()).as("guarantee claimed").isEqualTo(ConformanceReport.NOT_CLAIMED);
        CaseResult result = run.report().rowsOf("required_eo1_crashAtEveryFaultPoint/" + FaultPoints.SINK_WAL_AFTER_SEND)
                .get(0);
        assertThat(result.guarantee()).as("guarantee the case showed").isEqualTo("at-least-once");
        assertThat(result.duplicated()).as("duplicated ids").isPositive();
        assertThat(result.lost()).as("lost ids").isZero();
    }
}
