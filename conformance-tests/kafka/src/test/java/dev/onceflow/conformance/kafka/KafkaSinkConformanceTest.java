package dev.onceflow.conformance.kafka;

/**
 * The whole sink suite, plus broker-side faults, against the Kafka sink's exactly-once mode:
 * records in Kafka transactions, committed by the job after the checkpoint completed. Its report
 * is the connector's plain one, {@code sink-kafka}.
 */
class KafkaSinkConformanceTest extends KafkaSinkConformanceSuite {

    @Override
    protected String mode() {
        return "exactly-once";
    }

    /** The checkpoint holds only the transaction's handle: once the broker aborts it, its records are gone. */
    @Override
    protected boolean losesPreCommittedDataAfterTimeout() {
        return true;
    }
}
