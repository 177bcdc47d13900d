package dev.onceflow.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * One case of a conformance suite, run by the JUnit Platform launcher as a connector author's
 * build would run it, with what it reported. It proves that the suite catches what it should: run
 * a case against a deliberately weaker configuration (a broken connector, at-least-once mode,
 * ids that cannot deduplicate) and assert that it fails under the right rule. Such a suite class
 * should be a nested class, which surefire does not run by itself: the outcome of every test that ran, and the
 * conformance report the suite wrote for the connector.
 *
 * @param finished each test that ran, with its outcome
 * @param report the suite's report of the connector ({@code target/conformance/<kind>-<connector>.json})
 */
public record SelectedCase(List<Finished> finished, ConformanceReport.Document report) {

    private static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** A test that ran: its display name and outcome. */
    public record Finished(String displayName, TestExecutionResult result) {
    }

    /**
     * Runs {@code selector} with the given system properties set for the run (the suite reads its
     * settings when the suite class is instantiated), then restores them.
     *
     * <p>The suite's report is read and then deleted: it describes a deliberately broken connector
     * (or a correct one run in a weaker mode), and {@code GuaranteesMatrix} would otherwise publish
     * it next to the real connectors' reports.
     */
    public static SelectedCase run(DiscoverySelector selector, String kindAndConnector, Map<String, String> properties)
            throws IOException {
        List<Finished> finished = new ArrayList<>();
        Map<String, String> saved = new java.util.HashMap<>();
        properties.forEach((key, value) -> saved.put(key, System.setProperty(key, value)));
        try {
            Launcher launcher = LauncherFactory.create();
            launcher.execute(LauncherDiscoveryRequestBuilder.request().selectors(selector).build(),
                    new TestExecutionListener() {
                        @Override
                        public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                            if (test.isTest()) {
                                finished.add(new Finished(test.getDisplayName(), result));
                            }
                        }
                    });
        } finally {
            saved.forEach((key, value) -> {
                if (value == null) {
                    System.clearProperty(key);
                } else {
                    System.setProperty(key, value);
                }
            });
        }
        Path reports = Path.of("target", "conformance");
        Path json = reports.resolve(kindAndConnector + ".json");
        assertThat(json).as("the suite's report of %s", kindAndConnector).exists();
        ConformanceReport.Document report = JSON.readValue(json.toFile(), ConformanceReport.Document.class);
        Files.delete(json);
        Files.deleteIfExists(reports.resolve(kindAndConnector + ".md"));
        return new SelectedCase(List.copyOf(finished), report);
    }

    /**
     * The {@code n}-th (from 1) dynamic test of a {@code @TestFactory}. Its unique id is looked up
     * rather than written out: Jupiter names an inherited package-private method after its
     * declaring class, which a suite's author should not have to know.
     */
    public static DiscoverySelector dynamicTest(Class<?> suite, String factoryMethod, int n) {
        TestPlan plan = LauncherFactory.create().discover(LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectMethod(suite, factoryMethod)).build());
        UniqueId factory = plan.getRoots().stream().flatMap(root -> plan.getDescendants(root).stream())
                .filter(TestIdentifier::isContainer)
                .map(TestIdentifier::getUniqueIdObject)
                .filter(id -> id.getLastSegment().getType().equals("test-factory"))
                .findFirst().orElseThrow(() -> new AssertionError("no test factory " + factoryMethod + " in " + suite));
        return DiscoverySelectors.selectUniqueId(factory.append("dynamic-test", "#" + n));
    }

    public static SelectedCase run(DiscoverySelector selector, String kindAndConnector) throws IOException {
        return run(selector, kindAndConnector, Map.of());
    }

    /**
     * The message of the one case that ran, which must have failed with an assertion (not an
     * error of the harness, which would prove nothing about the connector).
     */
    public String failureMessage() {
        assertThat(finished).as("the tests that ran").hasSize(1);
        Finished only = finished.get(0);
        assertThat(only.result().getStatus()).as("outcome of %s: %s", only.displayName(), only.result())
                .isEqualTo(TestExecutionResult.Status.FAILED);
        Throwable failure = only.result().getThrowable().orElseThrow();
        assertThat(failure).as("how %s failed", only.displayName()).isInstanceOf(AssertionError.class);
        return failure.getMessage();
    }
}
