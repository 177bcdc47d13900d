package dev.onceflow.connector.kafka.sink;

import java.util.Objects;

/**
 * The handle of one Kafka transaction of the exactly-once sink: what another process needs to
 * commit it after this one died.
 *
 * @param transactionalId the producer's {@code transactional.id}, from the writer's bounded pool
 * @param producerId the producer id the broker assigned to that transactional id; -1 while the
 *     transaction is open (it is learned at pre-commit)
 * @param epoch the producer epoch the transaction's records were written with; -1 while open
 * @param checkpointId the checkpoint whose barrier pre-commits the transaction
 * @param records how many records were sent in it; a transaction without records has nothing on
 *     the broker to commit
 * @param probe where one of its records was written ({@code null} without records): whether a
 *     {@code read_committed} reader sees that record tells whether the transaction committed
 */
public record KafkaTransaction(String transactionalId, long producerId, short epoch, long checkpointId,
        long records, RecordPosition probe) {

    public KafkaTransaction {
        Objects.requireNonNull(transactionalId, "transactionalId");
        if (records < 0) {
            throw new IllegalArgumentException("negative record count " + records);
        }
        if ((records > 0) != (probe != null)) {
            throw new IllegalArgumentException("a transaction with records needs a probe position, and only then");
        }
    }

    /** A transaction just opened: producer id and epoch not known yet, nothing sent. */
    static KafkaTransaction open(String transactionalId, long checkpointId) {
        return new KafkaTransaction(transactionalId, -1, (short) -1, checkpointId, 0, null);
    }

    /** This handle after pre-commit, with what the producer used and where its first acknowledged record is. */
    KafkaTransaction preCommitted(long newProducerId, short newEpoch, long sent, RecordPosition firstRecord) {
        return new KafkaTransaction(transactionalId, newProducerId, newEpoch, checkpointId, sent, firstRecord);
    }

    /**
     * Where a record is.
     *
     * @param topic the topic
     * @param partition its partition
     * @param offset the record's offset
     */
    public record RecordPosition(String topic, int partition, long offset) {
        public RecordPosition {
            Objects.requireNonNull(topic, "topic");
            if (partition < 0 || offset < 0) {
                throw new IllegalArgumentException("bad record position " + topic + "-" + partition + "@" + offset);
            }
        }
    }

    /** For messages: id, producer id, epoch and checkpoint. */
    String describe() {
        return "transaction " + transactionalId + " (producer id " + producerId + ", epoch " + epoch
                + ", checkpoint " + checkpointId + ", " + records + " records)";
    }
}
