package dev.onceflow.connector.kafka;

import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * What the Kafka enumerator checkpoints.
 *
 * @param unassigned splits discovered but not yet handed to a reader (their reader had not come
 *     up), with their resolved starting offsets
 * @param discovered every partition ever discovered, assigned or not, so a restored enumerator
 *     never creates a second split for a partition whose reader already owns it
 */
public record KafkaEnumeratorState(List<KafkaSplit> unassigned, Set<TopicPartition> discovered) {

    public KafkaEnumeratorState {
        unassigned = List.copyOf(unassigned);
        discovered = Set.copyOf(discovered);
    }
}
