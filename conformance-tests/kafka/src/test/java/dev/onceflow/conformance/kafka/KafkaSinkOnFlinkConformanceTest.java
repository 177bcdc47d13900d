package dev.onceflow.conformance.kafka;

import dev.onceflow.conformance.ExecutionTarget;
import dev.onceflow.conformance.flink.FlinkTarget;

/**
 * The same suite as {@link KafkaSinkConformanceTest}, with the same broker fixture and crash
 * schedule, and the job on Apache Flink through the Flink bridge: the Kafka sink's exactly-once
 * mode (Kafka transactions) proven on both runtimes. Its report is {@code sink-kafka-on-flink}.
 */
class KafkaSinkOnFlinkConformanceTest extends KafkaSinkConformanceTest {

    @Override
    protected ExecutionTarget target() {
        return FlinkTarget.FLINK;
    }
}
