package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * How a sink's records become Kafka records, and how the write-ahead mode keeps them in a
 * checkpoint. Immutable and shared by the sink's writers; each writer takes its own
 * {@link #converter()}, since a converter may hold encoders that are not thread-safe.
 *
 * @param <T> the sink's records
 */
sealed interface KafkaRecords<T> permits EventRecords, RowRecords {

    /** The topic, or the template, as configured: for messages. */
    String topic();

    /** A converter for one writer, used on that writer's thread only. */
    Converter<T> converter();

    /** How the write-ahead mode stores records in a checkpoint. */
    SimpleVersionedSerializer<T> serializer();

    /** Turns one record into a Kafka record. Not thread-safe. */
    interface Converter<T> {

        /**
         * @return the Kafka record, or {@code null} when the record becomes none (an
         *     {@code UPDATE_BEFORE} in upsert mode, FMT-8): the writer sends nothing for it
         * @throws IllegalArgumentException naming the record when it cannot be written (a topic
         *     template it fills into an illegal name); the job fails, nothing is dropped
         */
        ProducerRecord<byte[], byte[]> toRecord(T record);
    }
}
