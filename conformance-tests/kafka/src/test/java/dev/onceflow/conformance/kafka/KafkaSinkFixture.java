package dev.onceflow.conformance.kafka;

import dev.onceflow.conformance.SinkExternalSystem;
import dev.onceflow.conformance.TestDestination;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.testing.kafka.KafkaBrokerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One Kafka broker (a child JVM, so cases can kill it) for a whole suite; each case writes into a
 * topic of its own with two partitions, with the case's name as transactional id prefix (and, in
 * write-ahead mode, a control topic of its own), so its transactions can be told apart from those
 * of earlier cases.
 */
final class KafkaSinkFixture implements SinkExternalSystem {

    static final int PARTITIONS = 2;

    /** States in which a transaction holds nothing: finished, or never begun. */
    private static final Set<TransactionState> FINISHED = EnumSet.of(TransactionState.COMPLETE_COMMIT,
            TransactionState.COMPLETE_ABORT, TransactionState.EMPTY);
    /** States in which the coordinator is still writing commit or abort markers into the partitions. */
    private static final Set<TransactionState> COMPLETING = EnumSet.of(TransactionState.PREPARE_COMMIT,
            TransactionState.PREPARE_ABORT, TransactionState.PREPARE_EPOCH_FENCE);
    private static final Duration READ_TIMEOUT = Duration.ofMinutes(1);

    private final String mode;
    private KafkaBrokerProcess broker;
    private Admin admin;

    /** @param mode the sink's {@code mode} option */
    KafkaSinkFixture(String mode) {
        this.mode = mode;
    }

    @Override
    public void start() {
        broker = KafkaBrokerProcess.start();
        admin = broker.admin();
    }

    @Override
    public void close() {
        if (admin != null) {
            admin.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    KafkaBrokerProcess broker() {
        return broker;
    }

    /** The exactly-once mode is the connector's plain report, {@code sink-kafka}. */
    @Override
    public String variant() {
        return mode.equals("exactly-once") ? "" : mode;
    }

    @Override
    public String sinkIdentifier() {
        return "kafka";
    }

    @Override
    public Map<String, Object> sinkOptions(TestDestination destination) {
        broker.createTopic(destination.name(), PARTITIONS);
        Map<String, Object> options = new HashMap<>();
        options.put("bootstrap-servers", broker.bootstrapServers());
        options.put("topic", destination.name());
        options.put("mode", mode);
        options.put("transactional-id-prefix", transactionalIdPrefix(destination));
        if (mode.equals("write-ahead")) {
            options.put("control-topic", controlTopic(destination));
        }
        return options;
    }

    /** Every transactional id the sink uses in this case starts with this and a dash. */
    static String transactionalIdPrefix(TestDestination destination) {
        return destination.name();
    }

    private static String controlTopic(TestDestination destination) {
        return destination.name() + "_control";
    }

    /**
     * Every record a {@code read_committed} consumer sees in the case's topic, read from the start
     * of each partition up to its last stable offset, once no commit of the case is still writing
     * its markers.
     *
     * @throws AssertionError if a record's key is not its event's key
     */
    @Override
    public List<Event> readCommitted(TestDestination destination) throws Exception {
        awaitMarkersWritten(destination);
        Map<String, Object> settings = new HashMap<>(broker.clientProperties());
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<Event> events = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(settings, new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> partitions = partitions(destination.name());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            Awaitility.await("a read_committed reader of " + destination.name() + " reaches the end offsets " + end)
                    .atMost(READ_TIMEOUT).pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                    .until(() -> {
                        // The end first: an empty partition would cost a whole poll timeout.
                        if (partitions.stream().allMatch(p -> consumer.position(p) >= end.get(p))) {
                            return true;
                        }
                        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                            events.add(event(record));
                        }
                        return false;
                    });
        }
        return events;
    }

    private static Event event(ConsumerRecord<String, String> record) {
        Event event = EventFormat.parse(record.value());
        if (!event.key().equals(record.key())) {
            throw new AssertionError("record " + record.topic() + "-" + record.partition() + "@" + record.offset()
                    + " has key '" + record.key() + "' but holds an event of key '" + event.key() + "': the sink must"
                    + " write the event's key as the record key");
        }
        return event;
    }

    /**
     * Waits until what a committed reader sees has settled: no transaction of the case is between
     * its commit (or abort) and its markers, and, unless one is open, every partition's last stable
     * offset has caught up with its high watermark. Right after a broker restart the coordinator
     * completes commits while it loads, and the last stable offset trails for a few seconds; an
     * open transaction, on the other hand, may be exactly what a case looks at (2PC-1). If it never
     * settles, reading goes on and {@link #leftovers} names what blocks.
     */
    private void awaitMarkersWritten(TestDestination destination) {
        try {
            Awaitility.await("the transactions of " + destination.name() + " have their markers written")
                    .atMost(READ_TIMEOUT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100))
                    .ignoreExceptions() // the coordinator answers COORDINATOR_LOAD_IN_PROGRESS while it loads
                    .until(() -> {
                        Map<String, TransactionState> states = transactions(destination);
                        if (states.values().stream().anyMatch(COMPLETING::contains)) {
                            return false;
                        }
                        return states.containsValue(TransactionState.ONGOING)
                                || stuckPartitions(destination.name()).isEmpty();
                    });
        } catch (ConditionTimeoutException e) {
            // Reported by leftovers() as transactions not finished or partitions with a stuck last stable offset.
        }
    }

    /**
     * Transactions of the case the coordinator has not finished (each with its id and state), and
     * partitions of the case's topics whose last stable offset is below the high watermark: a
     * stuck last stable offset blocks every {@code read_committed} reader of the partition.
     */
    @Override
    public List<String> leftovers(TestDestination destination) throws Exception {
        awaitMarkersWritten(destination);
        List<String> left = new ArrayList<>();
        transactions(destination).forEach((id, state) -> {
            if (!FINISHED.contains(state)) {
                left.add("transaction " + id + " " + state.name());
            }
        });
        left.addAll(stuckPartitions(destination.name()));
        if (mode.equals("write-ahead") && admin.listTopics().names().get(1, TimeUnit.MINUTES)
                .contains(controlTopic(destination))) {
            left.addAll(stuckPartitions(controlTopic(destination)));
        }
        return left;
    }

    /** The transactions whose id starts with the case's prefix, by id, as the coordinator lists them. */
    Map<String, TransactionState> transactions(TestDestination destination) throws Exception {
        String prefix = transactionalIdPrefix(destination) + "-";
        Map<String, TransactionState> states = new TreeMap<>();
        for (TransactionListing t : admin.listTransactions().all().get(1, TimeUnit.MINUTES)) {
            if (t.transactionalId().startsWith(prefix)) {
                states.put(t.transactionalId(), t.state());
            }
        }
        return states;
    }

    private List<String> stuckPartitions(String topic) throws Exception {
        List<TopicPartition> partitions = partitions(topic);
        Map<TopicPartition, Long> stable = endOffsets(partitions, IsolationLevel.READ_COMMITTED);
        Map<TopicPartition, Long> highWatermarks = endOffsets(partitions, IsolationLevel.READ_UNCOMMITTED);
        List<String> stuck = new ArrayList<>();
        for (TopicPartition p : partitions) {
            if (stable.get(p) < highWatermarks.get(p)) {
                stuck.add("partition " + p + ": last stable offset " + stable.get(p) + " below high watermark "
                        + highWatermarks.get(p) + " (an open transaction blocks read_committed readers)");
            }
        }
        return stuck;
    }

    private List<TopicPartition> partitions(String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(1, TimeUnit.MINUTES).get(topic).partitions()
                .stream().map(p -> new TopicPartition(topic, p.partition())).toList();
    }

    private Map<TopicPartition, Long> endOffsets(List<TopicPartition> partitions, IsolationLevel isolation)
            throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        partitions.forEach(p -> latest.put(p, OffsetSpec.latest()));
        Map<TopicPartition, Long> offsets = new HashMap<>();
        admin.listOffsets(latest, new ListOffsetsOptions(isolation)).all().get(1, TimeUnit.MINUTES)
                .forEach((p, info) -> offsets.put(p, info.offset()));
        return offsets;
    }
}
