package dev.onceflow.connector.kafka;

import dev.onceflow.spi.source.SourceSplit;
import java.util.Objects;
import org.apache.kafka.common.TopicPartition;

/**
 * One topic partition and how far it has been read.
 *
 * <p>Both offsets are concrete offsets of the partition, never a symbolic "latest" or "earliest":
 * the enumerator resolves the configured starting point before it creates a split, so no
 * checkpoint ever holds a position that means something else after a restore (the data loss of
 * FLINK-28303, where {@code -1} was checkpointed and later read as "latest").
 *
 * @param topic the topic
 * @param partition the partition number, {@code >= 0}
 * @param offset the next offset to read: every record before it was emitted (or was a
 *     transaction marker or an aborted record, which are never emitted)
 * @param stoppingOffset a bounded split is finished once its position reaches this offset (the
 *     end offset seen when the job first started); {@link #UNBOUNDED} for a split that never ends
 */
public record KafkaSplit(String topic, int partition, long offset, long stoppingOffset) implements SourceSplit {

    /** The stopping offset of a split that is read forever. */
    public static final long UNBOUNDED = Long.MAX_VALUE;

    public KafkaSplit {
        Objects.requireNonNull(topic, "topic");
        if (partition < 0) {
            throw new IllegalArgumentException("negative partition " + partition + " of topic " + topic);
        }
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset + " for " + topic + "-" + partition
                    + ": a split position must be a concrete offset");
        }
        if (stoppingOffset < 0) {
            throw new IllegalArgumentException("negative stopping offset " + stoppingOffset + " for " + topic + "-"
                    + partition);
        }
    }

    /** The partition as the Kafka clients name it. */
    public TopicPartition topicPartition() {
        return new TopicPartition(topic, partition);
    }

    /** Whether the position reached the stopping offset: nothing of this split is left to read. */
    public boolean isFinished() {
        return offset >= stoppingOffset;
    }

    /** This split with its position moved to {@code nextOffset}. */
    public KafkaSplit withOffset(long nextOffset) {
        return new KafkaSplit(topic, partition, nextOffset, stoppingOffset);
    }

    /** {@code <topic>-<partition>}, as Kafka writes partitions. */
    @Override
    public String splitId() {
        return topic + "-" + partition;
    }
}
