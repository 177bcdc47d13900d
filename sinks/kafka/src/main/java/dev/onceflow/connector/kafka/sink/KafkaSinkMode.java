package dev.onceflow.connector.kafka.sink;

/** The guarantee the Kafka sink gives, and the mechanism it uses for it. */
public enum KafkaSinkMode {
    /**
     * One Kafka transaction per checkpoint and subtask, committed when the checkpoint completes;
     * pre-committed transactions are committed after a crash by resuming them. Records become
     * visible to {@code read_committed} readers one checkpoint interval after they are written.
     * Loses the records of a pre-committed transaction (and says so) if the job stays down longer
     * than {@code transaction-timeout}.
     */
    EXACTLY_ONCE,
    /**
     * Records are kept in the checkpoint and written after it completes, in one short transaction
     * together with a marker in the control topic; no producer internals, no timeout loss. Costs
     * checkpoint size, and the time to write the records after the checkpoint completes (in
     * exactly-once mode they are already written then and only committed).
     */
    WRITE_AHEAD,
    /**
     * An {@code AtLeastOnceSink}: idempotent producer, flushed at every barrier. Nothing lost;
     * records replayed after a crash are appended again, so readers see duplicates.
     */
    AT_LEAST_ONCE,
    /**
     * A {@code BestEffortSink}, no guarantee: idempotent producer, never waited for at a barrier.
     * What is buffered at a crash is lost, and replayed records appear twice.
     */
    NONE
}
