package dev.onceflow.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The matrix presents a connector's guarantee only from a report that lists every case of its suite
 * with every required case passed; any other report is refused in one line, and nothing is written.
 */
class GuaranteesMatrixTest {

    private static final List<String> DECLARED = IntStream.rangeClosed(1, 18).mapToObj(n -> "required_case" + n).toList();

    @Test
    void completeReportsMakeTheMatrix(@TempDir Path root) throws Exception {
        writeReport(root.resolve("conformance-tests/filesystem"), "sink", "filesystem", DECLARED);
        writeReport(root.resolve("conformance-tests/file"), "source", "file", DECLARED);

        String matrix = GuaranteesMatrix.render(GuaranteesMatrix.collect(root));

        assertThat(matrix).contains("| filesystem | sink | exactly-once | 18/18 |", "| file | source | exactly-once | 18/18 |",
                "| file | exactly-once (measured) |");
    }

    @Test
    void aPartialReportIsRefusedInOneLine(@TempDir Path root) throws Exception {
        writeReport(root.resolve("conformance-tests/filesystem"), "sink", "filesystem", DECLARED);
        // A -Dtest run of one case: the other 17 did not run.
        writeReport(root.resolve("conformance-tests/file"), "source", "file", DECLARED.subList(0, 1));

        assertThatThrownBy(() -> GuaranteesMatrix.collect(root)).isInstanceOf(GuaranteesMatrix.RefusedReports.class)
                .hasMessageStartingWith(Path.of("conformance-tests/file/target/conformance/source-file.json")
                        + ": refused, partial run: 17 of 18 required cases did not pass: required_case2 (not run: "
                        + "not selected in this run), ")
                .hasMessageContaining(" and 12 more; run the connector's suite in full (no -Dtest)")
                .message().doesNotContain("\n");
    }

    @Test
    void aReportWithAnErroredCaseIsRefused(@TempDir Path root) throws Exception {
        Path module = root.resolve("conformance-tests/jdbc");
        ConformanceReport report = new ConformanceReport("jdbc", "sink", ConformanceSettings.fromSystemProperties());
        DECLARED.subList(0, 17).forEach(name -> passes(report, name));
        report.caseStarted("required_case18");
        report.caseEnded("required_case18", new IllegalStateException("connection refused"));
        report.write(module.resolve("target/conformance"), DECLARED);

        assertThatThrownBy(() -> GuaranteesMatrix.collect(root)).isInstanceOf(GuaranteesMatrix.RefusedReports.class)
                .hasMessage(Path.of("conformance-tests/jdbc/target/conformance/sink-jdbc.json") + ": refused, 1 of 18 "
                        + "required cases did not pass: required_case18 (errored: IllegalStateException: connection "
                        + "refused); run the connector's suite in full (no -Dtest) until every case passes, or delete "
                        + "the report");
    }

    @Test
    void aReportOfFormatOneIsRefused(@TempDir Path root) throws Exception {
        Path json = Files.createDirectories(root.resolve("conformance-tests/kafka/target/conformance")).resolve("sink-kafka.json");
        Files.writeString(json, """
                {"connector":"kafka","kind":"sink","profile":"quick","seed":1,"finishedAt":"2026-01-01T00:00:00Z",
                 "guarantee":"exactly-once","cases":[]}
                """);

        assertThatThrownBy(() -> GuaranteesMatrix.collect(root)).isInstanceOf(GuaranteesMatrix.RefusedReports.class)
                .hasMessageContaining("sink-kafka.json: refused, format 1 (before format 2) left out cases");
    }

    /** A report of a run of {@code ran}, out of the 18 cases its suite declares, each of which passed. */
    private static void writeReport(Path module, String kind, String connector, List<String> ran) throws Exception {
        ConformanceReport report = new ConformanceReport(connector, kind, ConformanceSettings.fromSystemProperties());
        ran.forEach(name -> passes(report, name));
        report.write(module.resolve("target/conformance"), DECLARED);
    }

    private static void passes(ConformanceReport report, String name) {
        report.caseStarted(name);
        report.add(new CaseResult(name, "EO-1", List.of(), 1, 20_000, 0, 0, 0, 0, 100, "exactly-once", true));
        report.caseEnded(name, null);
    }
}
