package dev.onceflow.conformance.flink;

import dev.onceflow.conformance.ExecutionTarget;
import java.util.List;

/**
 * The conformance suite's second runtime: the job under test on a Flink MiniCluster in the child
 * JVM, through the Flink bridge. A suite runs on it by overriding one method:
 *
 * <pre>{@code
 * class MySinkOnFlinkConformanceTest extends MySinkConformanceTest {
 *     @Override
 *     protected ExecutionTarget target() {
 *         return FlinkTarget.FLINK;
 *     }
 * }
 * }</pre>
 */
public final class FlinkTarget {

    /**
     * {@link FlinkJobRunner} in a child JVM. Flink's coordinator logs a checkpoint aborted by its
     * timeout as "expired before completing".
     */
    public static final ExecutionTarget FLINK = new ExecutionTarget("flink", FlinkJobRunner.class.getName(),
            List.of("-Xmx768m", "-XX:TieredStopAtLevel=1", "-Dlogback.configurationFile=onceflow-flink-logback.xml"),
            "expired before completing");

    private FlinkTarget() {
    }
}
