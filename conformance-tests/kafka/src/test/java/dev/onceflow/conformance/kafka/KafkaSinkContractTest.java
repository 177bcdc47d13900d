package dev.onceflow.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.conformance.SinkContract;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the suite holds each Kafka sink mode to is read from the sink the factory builds, so the
 * at-least-once mode is judged by ALO-1 and reported at-least-once, and none is not judged at all.
 * Building a sink opens no connection: no broker is needed.
 */
class KafkaSinkContractTest {

    @Test
    void eachModeIsJudgedByTheContractItImplements() {
        assertThat(contractOf("exactly-once")).isEqualTo(SinkContract.TWO_PHASE_COMMIT);
        assertThat(contractOf("at-least-once")).as("Kafka appends: not idempotent")
                .isEqualTo(SinkContract.AT_LEAST_ONCE);
        assertThat(contractOf("none")).as("never flushed at a barrier").isEqualTo(SinkContract.BEST_EFFORT);
    }

    private static SinkContract contractOf(String mode) {
        return SinkContract.of("kafka", Map.of("bootstrap-servers", "localhost:9092", "topic", "t", "mode", mode,
                "transactional-id-prefix", "p"));
    }
}
