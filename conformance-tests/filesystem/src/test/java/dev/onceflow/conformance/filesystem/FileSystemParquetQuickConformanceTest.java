package dev.onceflow.conformance.filesystem;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.CaseResult;
import dev.onceflow.conformance.SelectedCase;
import dev.onceflow.runtime.fault.FaultPoints;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;

/**
 * The cases of {@link FileSystemParquetSinkConformanceTest} around the commit, for the quick
 * profile, which leaves the whole suite out: a bounded run, a crash right after pre-commit (the
 * Parquet file finished, the checkpoint not yet complete), a crash before commit (the checkpoint
 * complete, the file not yet renamed), and an open file left behind by a crash. Each must end
 * with every record once, read back with Parquet's reader. The full profile runs the whole suite.
 */
class FileSystemParquetQuickConformanceTest {

    private static final Class<?> SUITE = FileSystemParquetSinkConformanceTest.class;
    private static final String REPORT = "sink-filesystem-parquet";

    @Test
    void boundedRunCommitsEveryRecordOnce() throws Exception {
        assertPassed(SelectedCase.run(DiscoverySelectors.selectMethod(SUITE, "required_eo3_boundedJobCommitsEverything"),
                REPORT), "required_eo3_boundedJobCommitsEverything", 0);
    }

    @Test
    void crashBetweenPreCommitAndCommitLosesAndDuplicatesNothing() throws Exception {
        assertPassed(SelectedCase.run(crashAt(FaultPoints.SINK_AFTER_PRECOMMIT), REPORT),
                "required_eo1_crashAtEveryFaultPoint/" + FaultPoints.SINK_AFTER_PRECOMMIT, 1);
    }

    @Test
    void crashAfterTheCheckpointCompletedBeforeTheRenameLosesAndDuplicatesNothing() throws Exception {
        assertPassed(SelectedCase.run(crashAt(FaultPoints.SINK_BEFORE_COMMIT), REPORT),
                "required_eo1_crashAtEveryFaultPoint/" + FaultPoints.SINK_BEFORE_COMMIT, 1);
    }

    @Test
    void unfinishedFilesOfALostCheckpointAreDiscarded() throws Exception {
        assertPassed(SelectedCase.run(DiscoverySelectors.selectMethod(SUITE, "required_2pc7_lingeringTransactionsAreAborted"),
                REPORT), "required_2pc7_lingeringTransactionsAreAborted", 1);
    }

    /** The suite's dynamic test of a crash at {@code point}, numbered as the suite lists them. */
    private static org.junit.platform.engine.DiscoverySelector crashAt(String point) {
        List<String> points = FaultPoints.ALL.stream().filter(p -> !p.equals(FaultPoints.SINK_DURING_RECOVERY)).toList();
        return SelectedCase.dynamicTest(SUITE, "required_eo1_crashAtEveryFaultPoint", points.indexOf(point) + 1);
    }

    /**
     * The case ran, passed, and its report shows what it claims: the JVM halted at least
     * {@code minCrashes} times, and every record came out once with nothing left behind.
     */
    private static void assertPassed(SelectedCase result, String caseName, int minCrashes) {
        assertThat(result.finished()).as("the cases that ran").singleElement().satisfies(finished -> assertThat(
                finished.result().getStatus()).as("%s: %s", finished.displayName(),
                        finished.result().getThrowable().map(Throwable::getMessage).orElse(""))
                .isEqualTo(TestExecutionResult.Status.SUCCESSFUL));
        List<CaseResult> ran = result.report().cases().stream().filter(c -> c.name().equals(caseName)).toList();
        assertThat(ran).as("checks of %s in the report", caseName).isNotEmpty().allSatisfy(check -> {
            assertThat(check.passed()).as("%s passed", check.rule()).isTrue();
            assertThat(check.guarantee()).isEqualTo("exactly-once");
            assertThat(check.crashes()).as("crashes").isGreaterThanOrEqualTo(minCrashes);
            assertThat(check.records()).as("records").isPositive();
            assertThat(check.lost() + check.duplicated() + check.unexpected() + check.leftovers())
                    .as("lost, duplicated, unexpected, left behind").isZero();
        });
    }
}
