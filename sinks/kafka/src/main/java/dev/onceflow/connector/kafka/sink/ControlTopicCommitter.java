package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.factory.Option;
import dev.onceflow.spi.sink.CheckpointCommitter;
import dev.onceflow.spi.sink.SinkContext;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Knows which segments the write-ahead mode wrote, from the markers in the control topic (WAL-2).
 *
 * <p>{@link #open()} reads them once: it first aborts the lingering transactions of the subtasks
 * this one owns, then reads every partition of the control topic as a {@code read_committed}
 * reader up to the high watermark it saw when it started, waiting for transactions still in
 * flight to end, so a marker committed by an earlier attempt is never missed. After that the
 * writer's own transactions add markers, and {@link #commitCheckpoint} only records them in memory:
 * the marker was committed together with the records.
 *
 * <p>A subtask's newest marker counts, not its highest: checkpoint ids start again at 1 when a job
 * is started afresh without its checkpoints, so an earlier run's markers would otherwise make the
 * new run's segments look sent (EO-6). Where this attempt's history has no segments of its own
 * subtask yet (a fresh start, or an index new after a scale-up), {@link #open()} first writes a
 * marker {@value #NOTHING_SENT} for it, which hides the earlier run's; after a restore, markers
 * after the restored checkpoint are of an abandoned history and count as the restored id (WAL-2).
 */
final class ControlTopicCommitter implements CheckpointCommitter {

    private static final Logger LOG = LoggerFactory.getLogger(ControlTopicCommitter.class);
    private static final long ADMIN_TIMEOUT_SECONDS = 60;
    private static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(10);
    private static final long RETRY_BACKOFF_MILLIS = 100;
    /** The marker of a subtask that sent no segment: checkpoint ids start at 1. */
    static final long NOTHING_SENT = 0;

    private final KafkaSinkSettings<?> settings;
    private final SinkContext context;
    private final String controlTopic;
    /** Highest checkpoint id written, per (former) subtask. */
    private final Map<Integer, Long> written = new HashMap<>();

    ControlTopicCommitter(KafkaSinkSettings<?> settings, SinkContext context) {
        this.settings = settings;
        this.context = context;
        this.controlTopic = settings.controlTopic(context);
    }

    @Override
    public void open() throws Exception {
        try (Admin admin = Admin.create(settings.producer().admin())) {
            List<TopicPartition> partitions = controlPartitions(admin);
            TransactionalIds.abortOpen(admin, settings.ownPrefixes(context), context::ownsFormerSubtask);
            readMarkers(highWatermarks(admin, partitions));
        }
        forgetAbandonedHistory();
        LOG.info("Subtask {} found the write-ahead markers {} in {}", context.subtaskIndex(), written,
                controlTopic);
    }

    /**
     * EO-6, WAL-2: only markers of the history this attempt restored may count. Markers after the
     * restored checkpoint were written by a history the job abandoned; the own subtask's markers,
     * when that history never had this subtask, are an earlier run's, and are superseded by a
     * marker {@value #NOTHING_SENT} written (and acknowledged) before this run sends anything.
     */
    private void forgetAbandonedHistory() throws Exception {
        OptionalLong restored = context.restoredCheckpointId();
        restored.ifPresent(id -> written.replaceAll((subtask, marked) -> Math.min(marked, id)));
        int own = context.subtaskIndex();
        boolean newToThisHistory = restored.isEmpty() || own >= context.restoredParallelism();
        if (!newToThisHistory || !written.containsKey(own)) {
            return;
        }
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings.producer().idempotentProducer())) {
            producer.send(ControlMarkers.marker(controlTopic, settings.prefix(context), own, NOTHING_SENT))
                    .get(ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        LOG.info("Subtask {} starts a new history: its marker up to checkpoint {} in {} is an earlier run's and no "
                + "longer counts", own, written.remove(own), controlTopic);
    }

    /** The control topic's partitions, creating it (compacted, one partition) if it does not exist. */
    private List<TopicPartition> controlPartitions(Admin admin) throws Exception {
        String topic = controlTopic;
        try {
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(1), Optional.empty())
                            .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT))))
                    .all().get(ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            LOG.info("Created the control topic {}", topic);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create the control topic " + topic + " (create it yourself, "
                        + "compacted, or give the sink's principal the right to): " + e.getCause(), e.getCause());
            }
        }
        TopicDescription description = retrying(() -> admin.describeTopics(List.of(topic)).allTopicNames(),
                "describe the control topic " + topic).get(topic);
        return description.partitions().stream().map(p -> new TopicPartition(topic, p.partition())).toList();
    }

    private Map<TopicPartition, Long> highWatermarks(Admin admin, List<TopicPartition> partitions) throws Exception {
        Map<TopicPartition, OffsetSpec> request = partitions.stream()
                .collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()));
        return retrying(() -> admin.listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED)).all(),
                "read the end offsets of the control topic " + controlTopic).entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    /**
     * Waits for an admin call, asking again while the broker answers with a retriable error, until
     * the admin timeout ends. A topic created a moment ago can be unknown to the broker that is
     * asked: the controller has created it, but the broker has not applied that metadata yet.
     * Without this, the first start against a new control topic could fail.
     */
    private <T> T retrying(Supplier<KafkaFuture<T>> call, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ADMIN_TIMEOUT_SECONDS);
        while (true) {
            try {
                return call.get().get(ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RetriableException) || System.nanoTime() > deadline) {
                    throw new IllegalStateException("cannot " + what + ": " + e.getCause(), e.getCause());
                }
                LOG.debug("Cannot {} yet ({}); asking again", what, e.getCause().toString());
                Thread.sleep(RETRY_BACKOFF_MILLIS);
            }
        }
    }

    /**
     * Reads the markers of this sink. 2PC-9: keys of the old default prefix count only for a
     * subtask without any marker of the current one: they were written before the change, and
     * (the old prefix being ambiguous) possibly by another job whose names join alike.
     */
    private void readMarkers(Map<TopicPartition, Long> ends) {
        List<String> prefixes = settings.ownPrefixes(context);
        Map<Integer, Long> writtenBefore29 = new HashMap<>();
        readMarkers(ends, prefixes, writtenBefore29);
        writtenBefore29.forEach(written::putIfAbsent);
    }

    private void readMarkers(Map<TopicPartition, Long> ends, List<String> prefixes,
            Map<Integer, Long> writtenBefore29) {
        Duration patience = settings.producer().transactionTimeout().plusMinutes(1);
        long deadline = System.nanoTime() + patience.toNanos();
        long nextReport = System.nanoTime() + PROGRESS_INTERVAL.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings.producer().committedReader())) {
            consumer.assign(ends.keySet());
            consumer.seekToBeginning(ends.keySet());
            while (!caughtUp(consumer, ends)) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    for (int i = 0; i < prefixes.size(); i++) {
                        OptionalInt subtask = ControlMarkers.subtaskOf(prefixes.get(i), record.key());
                        if (subtask.isPresent()) {
                            long id = ControlMarkers.checkpointId(record.value(),
                                    record.topic() + "-" + record.partition() + "@" + record.offset());
                            // The newest marker counts (EO-6): records of one key are in write order.
                            (i == 0 ? written : writtenBefore29).put(subtask.getAsInt(), id);
                        }
                    }
                }
                long now = System.nanoTime();
                if (now > deadline) {
                    throw new IllegalStateException("the control topic " + controlTopic + " did not become "
                            + "readable up to " + ends + " within " + Option.asText(patience) + ": a transaction on it stays open; "
                            + "find it with 'kafka-transactions.sh list'");
                }
                if (now > nextReport) {
                    nextReport = now + PROGRESS_INTERVAL.toNanos();
                    LOG.info("Waiting for open transactions on the control topic {} to end (read up to {} of {})",
                            controlTopic, positions(consumer, ends), ends);
                }
            }
        }
    }

    private static boolean caughtUp(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey()) < end.getValue()) {
                return false;
            }
        }
        return true;
    }

    private static Map<TopicPartition, Long> positions(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> ends) {
        Map<TopicPartition, Long> positions = new HashMap<>();
        ends.keySet().forEach(p -> positions.put(p, consumer.position(p)));
        return positions;
    }

    @Override
    public boolean isCheckpointCommitted(int subtaskIndex, long checkpointId) {
        return checkpointId <= written.getOrDefault(subtaskIndex, -1L);
    }

    /** The marker was committed with the records; this only remembers it. */
    @Override
    public void commitCheckpoint(int subtaskIndex, long checkpointId) {
        written.merge(subtaskIndex, checkpointId, Math::max);
    }

    @Override
    public void close() {
        written.clear();
    }
}
