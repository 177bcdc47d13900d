package dev.onceflow.conformance.kafka;

/**
 * The suite against the Kafka sink's write-ahead mode: records kept in the checkpoint and written
 * after it completed, in one transaction with a marker in the control topic ({@code sink-kafka-write-ahead}).
 */
class KafkaWriteAheadSinkConformanceTest extends KafkaSinkConformanceSuite {

    @Override
    protected String mode() {
        return "write-ahead";
    }

    /** The checkpoint holds the records themselves: a broker-side abort loses nothing. */
    @Override
    protected boolean losesPreCommittedDataAfterTimeout() {
        return false;
    }
}
