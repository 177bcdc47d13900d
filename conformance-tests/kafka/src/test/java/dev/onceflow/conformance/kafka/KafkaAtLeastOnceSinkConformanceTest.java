package dev.onceflow.conformance.kafka;

/**
 * The suite against the Kafka sink's at-least-once mode, an {@code AtLeastOnceSink}: an idempotent
 * producer without transactions, flushed at every barrier. Every delivery case checks that nothing
 * is lost (ALO-1) and counts the duplicates a replay appends; the report,
 * {@code sink-kafka-at-least-once}, says at-least-once, never exactly-once (ALO-2).
 */
class KafkaAtLeastOnceSinkConformanceTest extends KafkaSinkConformanceSuite {

    @Override
    protected String mode() {
        return "at-least-once";
    }

    /** No transactions: records are in the topic once flushed, so a broker-side abort has nothing to lose. */
    @Override
    protected boolean losesPreCommittedDataAfterTimeout() {
        return false;
    }
}
