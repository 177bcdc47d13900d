package dev.onceflow.conformance.kafka;

import dev.onceflow.conformance.ExecutionTarget;
import dev.onceflow.conformance.flink.FlinkTarget;

/**
 * The same suite as {@link KafkaSourceConformanceTest}, with the same topics and crash schedule,
 * and the job on Apache Flink through the Flink bridge: the Kafka source replays from its restored
 * offsets on both runtimes. Its report is {@code source-kafka-on-flink}.
 */
class KafkaSourceOnFlinkConformanceTest extends KafkaSourceConformanceTest {

    @Override
    protected ExecutionTarget target() {
        return FlinkTarget.FLINK;
    }
}
