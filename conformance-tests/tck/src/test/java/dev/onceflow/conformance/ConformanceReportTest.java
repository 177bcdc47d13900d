package dev.onceflow.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

/**
 * A report lists every case of its suite with how it ended, and claims a guarantee only when every
 * required case passed: given the cases a suite declares and what happened to each, the verdicts,
 * the headline and what keeps it from being claimed.
 */
class ConformanceReportTest {

    private static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** Eighteen cases, as a source suite has. */
    private static final List<String> DECLARED = IntStream.rangeClosed(1, 18).mapToObj(n -> "required_case" + n).toList();

    private final ConformanceReport report = new ConformanceReport("filesystem", "sink",
            ConformanceSettings.fromSystemProperties());

    @Test
    void everyCasePassedClaimsExactlyOnce() {
        DECLARED.forEach(this::passes);

        ConformanceReport.Document document = report.document(DECLARED);

        assertThat(document.verdicts()).as("verdicts").hasSize(18).containsOnlyKeys(DECLARED)
                .allSatisfy((name, verdict) -> assertThat(verdict).isEqualTo(CaseVerdict.PASSED));
        assertThat(document.guarantee()).isEqualTo("exactly-once");
        assertThat(document.notClaimedBecause()).isEmpty();
        assertThat(document.refusal()).isEmpty();
        assertThat(document.formatVersion()).isEqualTo(ConformanceReport.FORMAT_VERSION);
    }

    /** The reviewer's case: 17 rows for 18 tests, and the headline still said exactly-once. */
    @Test
    void aCaseThatThrowsBeforeItsVerdictIsErroredAndWithholdsTheGuarantee() {
        DECLARED.subList(0, 17).forEach(this::passes);
        report.caseStarted("required_case18");
        report.caseEnded("required_case18", new IllegalStateException("cannot read the output\n  at line 2"));

        ConformanceReport.Document document = report.document(DECLARED);

        assertThat(document.verdicts()).hasSize(18).containsEntry("required_case18", CaseVerdict.ERRORED);
        assertThat(document.rowsOf("required_case18")).singleElement().satisfies(row -> {
            assertThat(row.detail()).isEqualTo("IllegalStateException: cannot read the output");
            assertThat(row.passed()).isFalse();
        });
        assertThat(document.guarantee()).isEqualTo(ConformanceReport.NOT_CLAIMED);
        assertThat(document.notClaimedBecause())
                .containsExactly("required_case18 (errored: IllegalStateException: cannot read the output)");
        assertThat(document.refusal()).hasValue(
                "1 of 18 required cases did not pass: required_case18 (errored: IllegalStateException: cannot read the output)");
    }

    @Test
    void casesThatDidNotRunAreListedAndWithholdTheGuarantee() {
        passes("required_case1");
        report.caseStarted("required_case2");
        report.caseEnded("required_case2", new TestAbortedException("Assumption failed: no server"));
        report.caseDisabled("required_case3", "flaky on CI");

        ConformanceReport.Document document = report.document(DECLARED);

        assertThat(document.verdicts()).hasSize(18).containsEntry("required_case1", CaseVerdict.PASSED);
        assertThat(document.rowsOf("required_case2")).singleElement().satisfies(row -> {
            assertThat(row.verdict()).isEqualTo(CaseVerdict.NOT_RUN);
            assertThat(row.detail()).isEqualTo("aborted: TestAbortedException: Assumption failed: no server");
        });
        assertThat(document.rowsOf("required_case3")).singleElement()
                .satisfies(row -> assertThat(row.detail()).isEqualTo("disabled: flaky on CI"));
        assertThat(document.rowsOf("required_case18")).singleElement().satisfies(row -> {
            assertThat(row.verdict()).isEqualTo(CaseVerdict.NOT_RUN);
            assertThat(row.detail()).isEqualTo("not selected in this run");
        });
        assertThat(document.guarantee()).isEqualTo(ConformanceReport.NOT_CLAIMED);
        assertThat(document.notClaimedBecause()).hasSize(17);
        assertThat(document.refusal()).hasValueSatisfying(why -> assertThat(why)
                .startsWith("partial run: 17 of 18 required cases did not pass: required_case2 (not run: aborted: ")
                .endsWith(" and 12 more")
                .doesNotContain("\n"));
    }

    @Test
    void aViolatedCaseShowsWhatItsCheckFoundAndKeepsItsOtherChecks() {
        DECLARED.subList(1, 18).forEach(this::passes);
        report.caseStarted("required_case1");
        report.add(check("2PC-1", "exactly-once", true));
        report.add(check("2PC-4", "at-least-once", false));
        report.caseEnded("required_case1", new AssertionError("[2PC-4] Committing ..."));

        ConformanceReport.Document document = report.document(DECLARED);

        assertThat(document.rowsOf("required_case1")).extracting(CaseResult::rule, CaseResult::passed, CaseResult::verdict)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("2PC-1", true, CaseVerdict.VIOLATED),
                        org.assertj.core.groups.Tuple.tuple("2PC-4", false, CaseVerdict.VIOLATED));
        assertThat(document.notClaimedBecause()).containsExactly("required_case1 (violated: 2PC-4 at-least-once)");
        assertThat(document.guarantee()).isEqualTo(ConformanceReport.NOT_CLAIMED);
    }

    @Test
    void aCaseThatEndsWithoutACheckHasNoVerdict() {
        DECLARED.subList(1, 18).forEach(this::passes);
        report.caseStarted("required_case1");
        report.caseEnded("required_case1", null);

        ConformanceReport.Document document = report.document(DECLARED);

        assertThat(document.verdicts()).containsEntry("required_case1", CaseVerdict.ERRORED);
        assertThat(document.notClaimedBecause()).singleElement().asString().startsWith("required_case1 (errored: ended without a verdict");
    }

    @Test
    void aFixtureThatDidNotStartErrorsEveryCase() {
        report.fixtureFailed(new IllegalStateException("port 9092 in use"));

        ConformanceReport.Document document = report.document(DECLARED);

        assertThat(document.cases()).hasSize(18).allSatisfy(row -> {
            assertThat(row.verdict()).isEqualTo(CaseVerdict.ERRORED);
            assertThat(row.detail()).isEqualTo("the fixture did not start: IllegalStateException: port 9092 in use");
        });
        assertThat(document.guarantee()).isEqualTo(ConformanceReport.NOT_CLAIMED);
    }

    /** An {@code optional_} case is listed but neither withholds the guarantee nor weakens it. */
    @Test
    void onlyRequiredCasesDecideTheGuarantee() {
        List<String> declared = new ArrayList<>(DECLARED);
        declared.add("optional_case19");
        DECLARED.forEach(this::passes);

        ConformanceReport.Document document = report.document(declared);

        assertThat(document.verdicts()).containsEntry("optional_case19", CaseVerdict.NOT_RUN);
        assertThat(document.rowsOf("optional_case19")).singleElement().satisfies(row -> assertThat(row.required()).isFalse());
        assertThat(document.guarantee()).isEqualTo("exactly-once");
    }

    @Test
    void jsonAndMarkdownListEveryCaseAndReadBack(@TempDir Path directory) throws Exception {
        DECLARED.subList(0, 17).forEach(this::passes);

        report.write(directory, DECLARED);

        ConformanceReport.Document read = JSON.readValue(directory.resolve("sink-filesystem.json").toFile(),
                ConformanceReport.Document.class);
        assertThat(read.verdicts()).hasSize(18).containsEntry("required_case18", CaseVerdict.NOT_RUN);
        assertThat(read.guarantee()).isEqualTo(ConformanceReport.NOT_CLAIMED);
        assertThat(Files.readString(directory.resolve("sink-filesystem.json")))
                .contains("\"verdict\" : \"not-run\"", "\"formatVersion\" : 2");
        assertThat(Files.readString(directory.resolve("sink-filesystem.md")))
                .contains("17 of 18 cases passed. Guarantee: **not claimed**, because these required cases did not pass:\n\n"
                        + "- required_case18 (not run: not selected in this run)\n")
                .contains("| required_case18 | not run | - |")
                .doesNotContain("Guarantee reached");
    }

    /** A report of format 1 listed only recorded checks: it reads, and cannot vouch for a guarantee. */
    @Test
    void aReportOfFormatOneIsReadAndRefused() throws Exception {
        String v1 = """
                {"connector":"file","kind":"source","profile":"quick","seed":1,"finishedAt":"2026-01-01T00:00:00Z",
                 "guarantee":"exactly-once","cases":[{"name":"required_eo3_boundedJobCommitsEverything","rule":"EO-3",
                 "faults":[],"crashes":0,"records":20000,"lost":0,"duplicated":0,"unexpected":0,"leftovers":0,
                 "recoveryMillis":0,"guarantee":"exactly-once","passed":true}]}
                """;

        ConformanceReport.Document read = JSON.readValue(v1, ConformanceReport.Document.class);

        assertThat(read.refusal()).hasValueSatisfying(why -> assertThat(why).startsWith("format 1 (before format 2)"));
    }

    private void passes(String name) {
        report.caseStarted(name);
        report.add(check("EO-1", "exactly-once", true));
        report.caseEnded(name, null);
    }

    private static CaseResult check(String rule, String guarantee, boolean passed) {
        return new CaseResult("label", rule, List.of(), 1, 20_000, 0, 0, 0, 0, 100, guarantee, passed);
    }
}
