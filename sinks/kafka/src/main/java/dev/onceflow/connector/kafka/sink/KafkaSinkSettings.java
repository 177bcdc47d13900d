package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.sink.SinkContext;
import java.util.Objects;

/**
 * Everything a Kafka sink writer needs, whatever its mode. Immutable.
 *
 * @param producer client settings
 * @param records how events become records, and the topic
 * @param transactionalIdPrefix prefix of every transactional id, or {@code null} for
 *     {@code <job>-<sinkUid>}
 * @param controlTopic write-ahead mode: the topic of the markers, or {@code null} for
 *     {@code <prefix>-checkpoints}
 */
record KafkaSinkSettings(ProducerSettings producer, EventRecords records, String transactionalIdPrefix,
        String controlTopic) {

    KafkaSinkSettings {
        Objects.requireNonNull(producer, "producer");
        Objects.requireNonNull(records, "records");
    }

    /** The prefix of this sink's transactional ids in {@code context}'s job. */
    String prefix(SinkContext context) {
        return transactionalIdPrefix != null ? transactionalIdPrefix : context.jobName() + "-" + context.sinkUid();
    }

    /**
     * The write-ahead markers' topic in {@code context}'s job. One per sink by default: a
     * {@code read_committed} reader of a topic waits for every open transaction on it, so a
     * topic shared with other jobs would let their lingering transactions delay this sink's start.
     */
    String controlTopic(SinkContext context) {
        return controlTopic != null ? controlTopic : prefix(context) + "-checkpoints";
    }

    @Override
    public String toString() {
        return "topic " + records.topic() + ", " + producer;
    }
}
