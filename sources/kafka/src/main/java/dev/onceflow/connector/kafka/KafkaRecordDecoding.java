package dev.onceflow.connector.kafka;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.record.Event;
import dev.onceflow.spi.record.EventFormat;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * How a {@link KafkaSource} turns Kafka records into its records: {@link #events()}, or
 * {@link #rows rows} decoded from each record's value in a format, with the record's place in
 * Kafka as extra fields where asked.
 *
 * @param <T> the source's records
 */
public abstract class KafkaRecordDecoding<T> {

    /** Turns one Kafka record into a record of the source. Not thread-safe: one per reader. */
    @FunctionalInterface
    public interface Decoder<T> {

        /**
         * @throws MalformedRecordException with the reason, if the record is not one of the source's
         *     (the reader adds the partition and offset)
         */
        T decode(ConsumerRecord<byte[], byte[]> record) throws MalformedRecordException;
    }

    /** What a Kafka record says about its place, as a field a row can carry. */
    public enum Metadata {
        /** The topic's name. */
        TOPIC(DataType.STRING.notNull()),
        /** The partition's number. */
        PARTITION(DataType.INT.notNull()),
        /** The record's offset in its partition: with topic and partition, the record's identity. */
        OFFSET(DataType.LONG.notNull()),
        /** The broker's timestamp (create or append time); null for a record without one. */
        TIMESTAMP(DataType.TIMESTAMP_TZ);

        private final DataType type;

        Metadata(DataType type) {
            this.type = type;
        }

        /** The field's name: the constant in lower case. */
        public String fieldName() {
            return name().toLowerCase(Locale.ROOT);
        }

        Object valueOf(ConsumerRecord<byte[], byte[]> record) {
            return switch (this) {
                case TOPIC -> record.topic();
                case PARTITION -> record.partition();
                case OFFSET -> record.offset();
                case TIMESTAMP -> record.timestamp() < 0 ? null : Instant.ofEpochMilli(record.timestamp());
            };
        }
    }

    /** A name for errors, such as {@code "json"}. */
    abstract String name();

    /** A decoder for one reader. */
    abstract Decoder<T> newDecoder();

    /** Events, each record's value one {@link EventFormat} line in UTF-8. */
    public static KafkaRecordDecoding<Event> events() {
        return new KafkaRecordDecoding<>() {
            @Override
            String name() {
                return "event";
            }

            @Override
            Decoder<Event> newDecoder() {
                // one per reader, not per record: a decoder is reset by each decode call
                CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT);
                return record -> {
                    String line;
                    try {
                        line = utf8.decode(ByteBuffer.wrap(value(record))).toString();
                    } catch (CharacterCodingException e) {
                        throw new MalformedRecordException("its value is not UTF-8 text");
                    }
                    try {
                        return EventFormat.parse(line);
                    } catch (IllegalArgumentException e) {
                        throw new MalformedRecordException(e.getMessage());
                    }
                };
            }
        };
    }

    /**
     * Rows of {@link #schema(Schema, List)}: each record's value decoded in {@code format} into the
     * fields of {@code valueSchema}, followed by {@code metadata} fields in the order given. Checks
     * now that the format can read the value schema (FMT-4).
     */
    public static KafkaRecordDecoding<Row> rows(Format format, Schema valueSchema, List<Metadata> metadata) {
        Objects.requireNonNull(format, "format");
        Schema schema = schema(valueSchema, metadata);
        format.createDecoder(valueSchema);
        List<Metadata> extra = List.copyOf(metadata);
        return new KafkaRecordDecoding<>() {
            @Override
            String name() {
                return format.identifier();
            }

            @Override
            Decoder<Row> newDecoder() {
                RowDecoder decoder = format.createDecoder(valueSchema);
                if (extra.isEmpty()) {
                    return record -> decoder.decode(value(record));
                }
                return record -> {
                    Row value = decoder.decode(value(record));
                    Object[] values = new Object[schema.size()];
                    for (int i = 0; i < value.arity(); i++) {
                        values[i] = value.get(i);
                    }
                    for (int i = 0; i < extra.size(); i++) {
                        values[value.arity() + i] = extra.get(i).valueOf(record);
                    }
                    return Row.of(schema, values);
                };
            }
        };
    }

    /**
     * The value's fields followed by the metadata fields. Keyed by the value's primary key, or, when
     * it has none and topic, partition and offset are all asked for, by those three: the record's
     * position, which a replay reproduces.
     *
     * @throws OptionException if a metadata field has the name of a value field, or is asked twice
     */
    public static Schema schema(Schema valueSchema, List<Metadata> metadata) {
        if (metadata.isEmpty()) {
            return valueSchema;
        }
        List<Field> fields = new ArrayList<>(valueSchema.fields());
        for (Metadata m : metadata) {
            if (valueSchema.field(m.fieldName()).isPresent()) {
                throw new OptionException("source 'kafka': metadata field '" + m.fieldName()
                        + "' has the name of a field of the records' schema; rename that field");
            }
            if (fields.stream().anyMatch(f -> f.name().equals(m.fieldName()))) {
                throw new OptionException("source 'kafka': metadata field '" + m.fieldName() + "' is asked twice");
            }
            fields.add(Field.of(m.fieldName(), m.type));
        }
        return Schema.of(fields, valueSchema.primaryKey().isEmpty() && metadata.containsAll(POSITION)
                ? POSITION.stream().map(Metadata::fieldName).toList() : valueSchema.primaryKey());
    }

    /**
     * The metadata that identify a record: the primary key of rows that have no other, so that a
     * sink writing by key (upserts, document ids) writes a replayed record where it wrote it first.
     */
    private static final List<Metadata> POSITION = List.of(Metadata.TOPIC, Metadata.PARTITION, Metadata.OFFSET);

    private static byte[] value(ConsumerRecord<byte[], byte[]> record) throws MalformedRecordException {
        if (record.value() == null) {
            throw new MalformedRecordException("it has no value (a tombstone)");
        }
        return record.value();
    }

    @Override
    public String toString() {
        return name();
    }
}
