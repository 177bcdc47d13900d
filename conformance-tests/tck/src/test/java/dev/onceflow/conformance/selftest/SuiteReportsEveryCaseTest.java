package dev.onceflow.conformance.selftest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import dev.onceflow.conformance.CaseResult;
import dev.onceflow.conformance.CaseVerdict;
import dev.onceflow.conformance.ConformanceReport;
import dev.onceflow.conformance.SelectedCase;
import dev.onceflow.runtime.fault.FaultPoints;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * A report lists every case of its suite, run or not, and claims no guarantee unless every case
 * passed: a run of one selected case (as {@code -Dtest} makes one) lists the others as not run, a
 * case whose fixture throws is listed as errored, and a fixture that does not start errors them all.
 * Before, each of these runs reported only the cases that reached a verdict, under a guarantee.
 */
class SuiteReportsEveryCaseTest {

    private static final String BOUNDED = "required_eo3_boundedJobCommitsEverything";

    /** Small cases: these runs judge the report, not the connector. */
    private static final Map<String, String> FEW_ROWS = Map.of("onceflow.conformance.rows", "2000");

    @Test
    void aSubsetRunListsTheCasesItLeftOutAndClaimsNoGuarantee() throws Exception {
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.FileSystemSinkSuite.class, BOUNDED),
                "sink-filesystem", FEW_ROWS);

        assertThat(run.finished()).singleElement().satisfies(only -> assertThat(only.result().getStatus())
                .as("%s", only.result()).isEqualTo(TestExecutionResult.Status.SUCCESSFUL));
        Map<String, CaseVerdict> verdicts = run.report().verdicts();
        List<String> cases = casesOf(BrokenConnectorSuites.FileSystemSinkSuite.class);
        assertThat(verdicts.keySet()).as("cases in the report").containsExactlyInAnyOrderElementsOf(cases);
        assertThat(verdicts).containsEntry(BOUNDED, CaseVerdict.PASSED);
        assertThat(verdicts.entrySet()).filteredOn(c -> !c.getKey().equals(BOUNDED))
                .as("the cases the selection left out").hasSize(cases.size() - 1)
                .allSatisfy(c -> assertThat(c.getValue()).as(c.getKey()).isEqualTo(CaseVerdict.NOT_RUN));
        assertThat(run.report().guarantee()).isEqualTo(ConformanceReport.NOT_CLAIMED);
        assertThat(run.report().notClaimedBecause()).hasSize(cases.size() - 1)
                .contains("required_2pc4_sameCheckpointRestoredTwice (not run: not selected in this run)",
                        "required_eo1_crashAtEveryFaultPoint/" + FaultPoints.SINK_BEFORE_COMMIT
                                + " (not run: not selected in this run)");
    }

    @Test
    void aCaseWhoseFixtureThrowsIsErroredAndWithholdsTheGuarantee() throws Exception {
        BrokenConnectorSuites.BrokenFixture fixture =
                new BrokenConnectorSuites.BrokenFixture(BrokenConnectorSuites.BrokenFixture.Step.READ_COMMITTED);
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.UnreadableOutputSuite.class, BOUNDED),
                "sink-filesystem-" + fixture.variant(), FEW_ROWS);

        assertThat(run.finished()).singleElement().satisfies(only -> assertThat(only.result().getThrowable())
                .as("how the case failed").get().isInstanceOf(IllegalStateException.class));
        assertThat(run.report().rowsOf(BOUNDED)).singleElement().satisfies(row -> {
            assertThat(row.verdict()).isEqualTo(CaseVerdict.ERRORED);
            assertThat(row.detail()).isEqualTo(fixture.failure());
            assertThat(row.passed()).isFalse();
        });
        assertThat(run.report().verdicts()).as("cases in the report")
                .hasSize(casesOf(BrokenConnectorSuites.UnreadableOutputSuite.class).size());
        assertThat(run.report().guarantee()).isEqualTo(ConformanceReport.NOT_CLAIMED);
        assertThat(run.report().notClaimedBecause()).contains(BOUNDED + " (errored: " + fixture.failure() + ")");
    }

    @Test
    void aFixtureThatDoesNotStartErrorsEveryCase() throws Exception {
        BrokenConnectorSuites.BrokenFixture fixture =
                new BrokenConnectorSuites.BrokenFixture(BrokenConnectorSuites.BrokenFixture.Step.START);
        SelectedCase run = SelectedCase.run(selectClass(BrokenConnectorSuites.UnstartableSuite.class),
                "sink-filesystem-" + fixture.variant(), FEW_ROWS);

        assertThat(run.finished()).as("cases that ran").isEmpty();
        assertThat(run.report().verdicts().keySet()).as("cases in the report")
                .containsExactlyInAnyOrderElementsOf(casesOf(BrokenConnectorSuites.UnstartableSuite.class));
        assertThat(run.report().cases()).extracting(CaseResult::verdict).containsOnly(CaseVerdict.ERRORED);
        assertThat(run.report().cases()).extracting(CaseResult::detail)
                .containsOnly("the fixture did not start: " + fixture.failure());
        assertThat(run.report().guarantee()).isEqualTo(ConformanceReport.NOT_CLAIMED);
    }

    /**
     * A case that cannot apply to the connector passes as not applicable, saying why: an assumption
     * would abort it, and an aborted case counts as not run, which would withhold the guarantee of
     * every source that does not discover input (datagen).
     */
    @Test
    void aCaseThatCannotApplyPassesAsNotApplicable() throws Exception {
        String src3 = "required_src3_inputAddedWhileRunningIsReadOnce";
        SelectedCase run = SelectedCase.run(selectMethod(BrokenConnectorSuites.FileSourceWithoutDiscoverySuite.class, src3),
                "source-file-no-discovery", FEW_ROWS);

        assertThat(run.report().rowsOf(src3)).singleElement().satisfies(row -> {
            assertThat(row.verdict()).isEqualTo(CaseVerdict.PASSED);
            assertThat(row.guarantee()).isEqualTo("not-applicable");
            assertThat(row.detail()).isEqualTo("the source does not discover input added while it runs");
        });
    }

    /**
     * The cases of a suite as JUnit discovers them, not as the report finds them: each test method,
     * and for the crash factory each fault point it crashes at.
     */
    static List<String> casesOf(Class<?> suite) {
        TestPlan plan = LauncherFactory.create().discover(LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(suite)).build());
        List<String> cases = new ArrayList<>();
        for (TestIdentifier test : plan.getDescendants(plan.getRoots().iterator().next())) {
            if (!(test.getSource().orElse(null) instanceof MethodSource method)) {
                continue;
            }
            if (test.isTest()) {
                cases.add(method.getMethodName());
            } else {
                FaultPoints.ALL.stream().filter(point -> !point.equals(FaultPoints.SINK_DURING_RECOVERY))
                        .forEach(point -> cases.add(method.getMethodName() + "/" + point));
            }
        }
        return cases;
    }
}
