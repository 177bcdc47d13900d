package dev.onceflow.conformance.kafka;

import dev.onceflow.conformance.SourceConformanceSuite;
import dev.onceflow.conformance.SourceExternalSystem;
import dev.onceflow.conformance.TestDestination;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.testing.kafka.EmbeddedKafkaBroker;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The whole source suite against the Kafka source, on one embedded KRaft broker for the class.
 * The jobs run in child JVMs and reach the broker by its 127.0.0.1 port.
 */
class KafkaSourceConformanceTest extends SourceConformanceSuite {

    @Override
    protected SourceExternalSystem externalSystem() {
        return new TopicFixture();
    }

    /**
     * One topic per case; each batch of input is a new partition of it, written in one committed
     * transaction, so every batch is a new split, and every partition ends with a commit marker
     * that a bounded read_committed source must step over to finish.
     */
    static final class TopicFixture implements SourceExternalSystem {

        private final Map<String, Integer> partitions = new HashMap<>();
        private EmbeddedKafkaBroker broker;
        private KafkaProducer<String, String> producer;

        @Override
        public void start() {
            broker = EmbeddedKafkaBroker.start();
            producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                    ProducerConfig.TRANSACTIONAL_ID_CONFIG, "conformance-input"),
                    new StringSerializer(), new StringSerializer());
            producer.initTransactions();
        }

        @Override
        public void close() {
            if (producer != null) {
                producer.close();
            }
            if (broker != null) {
                broker.close();
            }
        }

        @Override
        public String sourceIdentifier() {
            return "kafka";
        }

        @Override
        public Map<String, Object> sourceOptions(TestDestination destination, boolean bounded) {
            Map<String, Object> options = new HashMap<>();
            options.put("bootstrap-servers", broker.bootstrapServers());
            options.put("topics", destination.name());
            if (bounded) {
                options.put("bounded", "true");
            } else {
                options.put("discovery-interval", "200ms");
            }
            return options;
        }

        @Override
        public void writeInput(TestDestination destination, List<Event> events) {
            String topic = destination.name();
            int partition = partitions.merge(topic, 1, Integer::sum) - 1;
            if (partition == 0) {
                broker.createTopic(topic, 1);
            } else {
                broker.addPartitions(topic, partition + 1);
            }
            producer.beginTransaction();
            for (Event event : events) {
                producer.send(new ProducerRecord<>(topic, partition, event.key(), EventFormat.toLine(event)));
            }
            producer.commitTransaction();
        }
    }
}
