package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.sink.SinkContext;
import java.util.List;
import java.util.Objects;

/**
 * Everything a Kafka sink writer needs, whatever its mode. Immutable.
 *
 * @param producer client settings
 * @param records how the sink's records become Kafka records, and the topic
 * @param transactionalIdPrefix prefix of every transactional id, or {@code null} for
 *     {@code <job>:<sinkUid>} (rule 2PC-9)
 * @param controlTopic write-ahead mode: the topic of the markers, or {@code null} for
 *     {@code <job>-<sinkUid>-checkpoints}
 */
record KafkaSinkSettings<T>(ProducerSettings producer, KafkaRecords<T> records, String transactionalIdPrefix,
        String controlTopic) {

    KafkaSinkSettings {
        Objects.requireNonNull(producer, "producer");
        Objects.requireNonNull(records, "records");
    }

    /**
     * The prefix of this sink's transactional ids and marker keys in {@code context}'s job. By
     * default the job's and sink's escaped names joined by ':' (2PC-9): job {@code orders} with
     * sink {@code eu-db} and job {@code orders-eu} with sink {@code db} no longer share it.
     */
    String prefix(SinkContext context) {
        if (transactionalIdPrefix != null) {
            return transactionalIdPrefix;
        }
        String prefix = context.transactionIdPrefix();
        return prefix.substring(0, prefix.length() - 1); // without the trailing separator
    }

    /**
     * The prefixes whose ids this sink cleans up: its own, and by default also the one used before
     * 2PC-9, {@code <job>-<sinkUid>}, which transactions of a checkpoint taken before the change
     * still carry. Only ids of exactly {@code <prefix>-<subtask>-<slot>} match either.
     */
    List<String> ownPrefixes(SinkContext context) {
        return transactionalIdPrefix != null ? List.of(transactionalIdPrefix)
                : List.of(prefix(context), legacyPrefix(context));
    }

    /** The default prefix before 2PC-9: the same for job {@code orders}/sink {@code eu-db} and job {@code orders-eu}/sink {@code db}. */
    private static String legacyPrefix(SinkContext context) {
        return context.jobName() + "-" + context.sinkUid();
    }

    /**
     * The write-ahead markers' topic in {@code context}'s job. One per sink by default: a
     * {@code read_committed} reader of a topic waits for every open transaction on it, so a
     * topic shared with other jobs would let their lingering transactions delay this sink's start.
     */
    String controlTopic(SinkContext context) {
        // A topic name cannot hold ':', and a resumed job must find its markers where it left them:
        // the name stays as it was. Jobs whose names join alike share the topic, not marker keys.
        return controlTopic != null ? controlTopic
                : (transactionalIdPrefix != null ? transactionalIdPrefix : legacyPrefix(context)) + "-checkpoints";
    }

    @Override
    public String toString() {
        return "topic " + records.topic() + ", " + producer;
    }
}
