package dev.onceflow.connector.kafka;

import dev.onceflow.spi.source.SplitEnumerator;
import dev.onceflow.spi.source.SplitEnumeratorContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Discovers the topic partitions to read, resolves where each starts (and, bounded, where it
 * stops) to concrete offsets, and pushes each partition to one reader.
 *
 * <p><b>Assignment</b> is a pure function of the partition and the parallelism (partitions of a
 * topic go round-robin over the readers, starting at a reader chosen by the topic's name), so
 * readers never ask for work. A split whose reader has not come up yet waits in the checkpointed
 * state. A bounded enumerator tells each reader, once it is registered and has its splits, that no
 * more will come.
 *
 * <p><b>Discovery</b>: at the first start, with the configured starting offsets; then, continuous
 * only, every discovery interval and once more after each restore, where new partitions start at
 * their earliest offset. Every partition ever discovered is remembered (and checkpointed), so a
 * partition gets exactly one split in the life of the job (rule SRC-3).
 */
final class KafkaEnumerator implements SplitEnumerator<KafkaSplit, KafkaEnumeratorState> {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaEnumerator.class);
    private static final long ADMIN_TIMEOUT_MILLIS = 60_000;

    private final SplitEnumeratorContext<KafkaSplit> context;
    private final KafkaSource source;
    private final boolean restored;
    private final List<KafkaSplit> unassigned;
    private final Set<TopicPartition> discovered;
    private final Set<Integer> readers = new TreeSet<>();
    private Admin admin;
    private OffsetResolver offsets;

    KafkaEnumerator(SplitEnumeratorContext<KafkaSplit> context, KafkaSource source, KafkaEnumeratorState state,
            boolean restored) {
        this.context = context;
        this.source = source;
        this.restored = restored;
        this.unassigned = new ArrayList<>(state.unassigned());
        this.discovered = new HashSet<>(state.discovered());
    }

    @Override
    public void start() {
        LOG.info("Kafka source {}{}", source, restored ? " (restored)" : "");
        admin = Admin.create(source.client().admin());
        offsets = new OffsetResolver(admin, source.client().isolationLevel(), ADMIN_TIMEOUT_MILLIS);
        if (!restored) {
            discover(source.startingOffsets());
        } else if (!source.bounded()) {
            // Partitions created while the job was down: written after it started, so from earliest.
            discover(StartingOffsets.EARLIEST);
        }
        // A bounded job's input is what existed at its first start; it never discovers again.
        Duration interval = source.discoveryInterval();
        if (!source.bounded() && !interval.isZero()) {
            context.runPeriodically(() -> {
                discover(StartingOffsets.EARLIEST);
                assignPending();
            }, interval);
        }
    }

    @Override
    public void addReader(int subtaskIndex) {
        readers.add(subtaskIndex);
        assignPending();
        if (source.bounded()) {
            // Every split this reader will get was just assigned: discovery ran at start and never again.
            context.signalNoMoreSplits(subtaskIndex);
        }
    }

    @Override
    public void handleSplitRequest(int subtaskIndex) {
        // Readers never ask: assignment is pushed on discovery and when a reader registers.
    }

    /** The reader that owns {@code partition} at {@code parallelism}. */
    static int owner(TopicPartition partition, int parallelism) {
        int first = Math.floorMod(partition.topic().hashCode() * 31, parallelism);
        return (first + partition.partition()) % parallelism;
    }

    private void assignPending() {
        Map<Integer, List<KafkaSplit>> byReader = new LinkedHashMap<>();
        for (var it = unassigned.iterator(); it.hasNext(); ) {
            KafkaSplit split = it.next();
            int reader = owner(split.topicPartition(), context.parallelism());
            if (readers.contains(reader)) {
                byReader.computeIfAbsent(reader, r -> new ArrayList<>()).add(split);
                it.remove();
            }
        }
        byReader.forEach(context::assignSplits);
    }

    /** Finds partitions never seen before and queues a split for each, starting as {@code start} says. */
    private void discover(StartingOffsets start) {
        Set<TopicPartition> found = listPartitions();
        List<TopicPartition> fresh = new ArrayList<>();
        for (TopicPartition partition : found) {
            if (!discovered.contains(partition)) {
                fresh.add(partition);
            }
        }
        if (fresh.isEmpty()) {
            return;
        }
        fresh.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        Map<TopicPartition, Long> startAt = startingOffsets(fresh, start);
        Map<TopicPartition, Long> stopAt = source.bounded() ? offsets.latest(fresh) : Map.of();
        for (TopicPartition partition : fresh) {
            long stop = source.bounded() ? stopAt.get(partition) : KafkaSplit.UNBOUNDED;
            unassigned.add(new KafkaSplit(partition.topic(), partition.partition(), startAt.get(partition), stop));
            discovered.add(partition);
        }
        LOG.info("Kafka source discovered {} new partition(s) starting at {}: {}", fresh.size(), start, fresh);
        assignPending();
    }

    private Map<TopicPartition, Long> startingOffsets(List<TopicPartition> partitions, StartingOffsets start) {
        return switch (start) {
            case EARLIEST -> offsets.earliest(partitions);
            case LATEST -> offsets.latest(partitions);
            case TIMESTAMP -> offsets.forTimestamp(partitions, source.startingTimestamp());
            case COMMITTED -> offsets.committed(partitions, source.client().groupId(), source.committedFallback());
        };
    }

    private Set<TopicPartition> listPartitions() {
        List<String> topics;
        if (source.topics() != null) {
            topics = source.topics();
        } else {
            Set<String> names = offsets.await(admin.listTopics(new ListTopicsOptions().listInternal(false)).names(),
                    "the list of topics");
            topics = names.stream().filter(name -> source.topicPattern().matcher(name).matches()).sorted().toList();
        }
        if (topics.isEmpty()) {
            return Set.of();
        }
        Map<String, TopicDescription> descriptions;
        try {
            descriptions = offsets.await(admin.describeTopics(topics).allTopicNames(), "the partitions of " + topics);
        } catch (IllegalStateException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                throw new IllegalStateException("a topic of " + topics + " does not exist; the Kafka source does not "
                        + "create topics: " + e.getCause().getMessage(), e.getCause());
            }
            throw e;
        }
        Set<TopicPartition> partitions = new HashSet<>();
        descriptions.forEach((topic, description) -> description.partitions()
                .forEach(p -> partitions.add(new TopicPartition(topic, p.partition()))));
        return partitions;
    }

    @Override
    public KafkaEnumeratorState snapshotState(long checkpointId) {
        return new KafkaEnumeratorState(unassigned, discovered);
    }

    @Override
    public void close() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
    }
}
