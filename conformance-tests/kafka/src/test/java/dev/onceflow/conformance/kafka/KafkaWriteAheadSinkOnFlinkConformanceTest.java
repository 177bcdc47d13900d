package dev.onceflow.conformance.kafka;

import dev.onceflow.conformance.ExecutionTarget;
import dev.onceflow.conformance.flink.FlinkTarget;

/**
 * The same suite as {@link KafkaWriteAheadSinkConformanceTest} with the job on Apache Flink: the
 * Kafka sink's write-ahead mode through the bridge's write-ahead committer, against the broker the
 * suite kills and restarts. Runs with {@code -Pconformance-full}.
 */
class KafkaWriteAheadSinkOnFlinkConformanceTest extends KafkaWriteAheadSinkConformanceTest {

    @Override
    protected ExecutionTarget target() {
        return FlinkTarget.FLINK;
    }
}
