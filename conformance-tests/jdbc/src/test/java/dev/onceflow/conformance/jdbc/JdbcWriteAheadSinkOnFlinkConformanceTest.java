package dev.onceflow.conformance.jdbc;

import dev.onceflow.conformance.ExecutionTarget;
import dev.onceflow.conformance.flink.FlinkTarget;

/**
 * The same suite as {@link JdbcWriteAheadSinkConformanceTest} with the job on Apache Flink: the
 * JDBC sink's write-ahead mode through the bridge's write-ahead committer, rows and checkpoint
 * marker in one transaction. Runs with {@code -Pconformance-full}.
 */
class JdbcWriteAheadSinkOnFlinkConformanceTest extends JdbcWriteAheadSinkConformanceTest {

    @Override
    protected ExecutionTarget target() {
        return FlinkTarget.FLINK;
    }
}
