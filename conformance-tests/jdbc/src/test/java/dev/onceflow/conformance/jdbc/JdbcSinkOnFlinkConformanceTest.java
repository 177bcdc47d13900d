package dev.onceflow.conformance.jdbc;

import dev.onceflow.conformance.ExecutionTarget;
import dev.onceflow.conformance.flink.FlinkTarget;

/**
 * The same suite as {@link JdbcSinkConformanceTest}, with the same PostgreSQL fixture and crash
 * schedule, and the job on Apache Flink through the Flink bridge: the JDBC sink's exactly-once
 * mode (prepared transactions) proven on both runtimes. Its report is {@code sink-jdbc-...-on-flink}.
 */
class JdbcSinkOnFlinkConformanceTest extends JdbcSinkConformanceTest {

    @Override
    protected ExecutionTarget target() {
        return FlinkTarget.FLINK;
    }
}
