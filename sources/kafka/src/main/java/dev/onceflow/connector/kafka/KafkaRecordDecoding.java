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
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

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
         * The source's records that one Kafka record holds, in order: one, but for a changelog format
         * (FMT-8), whose update gives two and whose tombstone gives none.
         *
         * @throws MalformedRecordException with the reason, if the record is not one of the source's
         *     (the reader adds the partition and offset)
         */
        List<T> decode(ConsumerRecord<byte[], byte[]> record) throws MalformedRecordException;
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
        TIMESTAMP(DataType.TIMESTAMP_TZ),
        /**
         * The record's headers, each key with its value's bytes (null for a header without a value);
         * empty for a record without headers. Of headers with the same key, the last is kept, as
         * Kafka's {@code Headers.lastHeader} reads them.
         */
        HEADERS(DataType.map(DataType.STRING, DataType.BYTES).notNull());

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
                case HEADERS -> {
                    Map<String, byte[]> headers = new LinkedHashMap<>();
                    for (Header header : record.headers()) {
                        headers.remove(header.key()); // the last of duplicates keeps its place too
                        headers.put(header.key(), header.value());
                    }
                    yield headers;
                }
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
                        return List.of(EventFormat.parse(line));
                    } catch (IllegalArgumentException e) {
                        throw new MalformedRecordException(e.getMessage());
                    }
                };
            }
        };
    }

    /**
     * The fields of the rows that a record's key holds, decoded in a format of their own, and
     * whether the value holds them too.
     *
     * @param format the key's format
     * @param fields the names of the key's fields, in the order the key format reads them (for a
     *     format that fixes its own schema, such as raw, its fields match these by position)
     * @param valueHoldsKey true ({@code value-fields-include: all}): the value holds every field,
     *     and a key field must have the same value in both; false ({@code except-key}): the value
     *     holds only the fields that are not the key's
     */
    public record Key(Format format, List<String> fields, boolean valueHoldsKey) {

        public Key {
            Objects.requireNonNull(format, "format");
            fields = List.copyOf(fields);
            if (fields.isEmpty()) {
                throw new IllegalArgumentException("a key needs at least one field");
            }
        }
    }

    /**
     * Rows of {@link #schema(Schema, List)}: each record's value decoded in {@code format} into the
     * fields of {@code valueSchema}, followed by {@code metadata} fields in the order given. Checks
     * now that the format can read the value schema (FMT-4).
     */
    public static KafkaRecordDecoding<Row> rows(Format format, Schema valueSchema, List<Metadata> metadata) {
        return rows(format, valueSchema, null, metadata);
    }

    /**
     * Rows of {@link #schema(Schema, List) schema(fields, metadata)}: the fields of {@code fields}
     * in their order, the {@code key}'s decoded from each record's key and the others from its value
     * in {@code format}, followed by the {@code metadata} fields. Checks now that each format can
     * read its part (FMT-4).
     *
     * <p>A record without a key (null) gives null key fields when every key field may be null (under
     * {@link Key#valueHoldsKey}, the value's copies); if a key field may not be null, it is malformed.
     *
     * @param key the fields the key holds, or null to decode the value only
     * @throws OptionException with one line, if a key field is not one of {@code fields} or is named
     *     twice, the value would hold no field, or a format cannot read its part
     */
    public static KafkaRecordDecoding<Row> rows(Format format, Schema fields, Key key, List<Metadata> metadata) {
        Objects.requireNonNull(format, "format");
        Schema schema = schema(fields, metadata);
        Parts parts = key == null ? null : Parts.of(fields, key, format);
        Schema valueSchema = parts == null ? fields : parts.valueRecordSchema;
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
                if (parts == null && extra.isEmpty()) {
                    return record -> valueRows(decoder, record);
                }
                RowDecoder keyDecoder = parts == null ? null : key.format().createDecoder(parts.keyRecordSchema);
                return record -> {
                    List<Row> valueRows = valueRows(decoder, record);
                    Row keyRow = parts == null || valueRows.isEmpty() ? null : keyOf(record, keyDecoder);
                    List<Row> rows = new ArrayList<>(valueRows.size());
                    for (Row value : valueRows) {
                        Object[] values = new Object[schema.size()];
                        if (parts == null) {
                            System.arraycopy(value.values(), 0, values, 0, value.arity());
                        } else {
                            parts.fill(values, value, keyRow);
                        }
                        for (int i = 0; i < extra.size(); i++) {
                            values[fields.size() + i] = extra.get(i).valueOf(record);
                        }
                        // a changelog format's update or delete stays one with the extra fields (CHG-1)
                        rows.add(Row.of(schema, values).withKind(value.kind()));
                    }
                    return rows;
                };
            }

            /** A changelog format reads a tombstone as no row (FMT-8); every other format refuses it. */
            private List<Row> valueRows(RowDecoder decoder, ConsumerRecord<byte[], byte[]> record)
                    throws MalformedRecordException {
                return record.value() == null ? decoder.decodeAbsent()
                        : decoder.decodeRows(record.value(), 0, record.value().length);
            }

            private Row keyOf(ConsumerRecord<byte[], byte[]> record, RowDecoder keyDecoder)
                    throws MalformedRecordException {
                if (record.key() == null) {
                    if (!parts.keyMayBeNull) {
                        throw new MalformedRecordException("it has no key (null), and key field '"
                                + parts.firstNotNullKeyField + "' may not be null");
                    }
                    return null;
                }
                try {
                    return keyDecoder.decode(record.key());
                } catch (MalformedRecordException e) {
                    throw new MalformedRecordException("its key (format " + key.format().identifier()
                            + ") does not decode: " + e.getMessage(), e);
                }
            }
        };
    }

    /** Where each field of the rows comes from: the key's decoded row, the value's, or both. */
    private static final class Parts {

        final Schema valueRecordSchema;
        final Schema keyRecordSchema;
        final boolean keyMayBeNull;
        final String firstNotNullKeyField;
        final boolean valueHoldsKey;
        final List<String> names;
        /** For each field of the rows, its position in the key's row, or -1. */
        final int[] inKey;
        /** For each field of the rows, its position in the value's row, or -1. */
        final int[] inValue;

        private Parts(Schema fields, Key key, Schema valueSchema, Schema valueRecordSchema, Schema keyRecordSchema) {
            this.valueRecordSchema = valueRecordSchema;
            this.keyRecordSchema = keyRecordSchema;
            this.valueHoldsKey = key.valueHoldsKey();
            this.names = fields.names();
            this.firstNotNullKeyField = key.fields().stream().filter(n -> !fields.field(n).orElseThrow().type()
                    .nullable()).findFirst().orElse(null);
            this.keyMayBeNull = firstNotNullKeyField == null;
            inKey = new int[fields.size()];
            inValue = new int[fields.size()];
            for (int i = 0; i < fields.size(); i++) {
                inKey[i] = key.fields().indexOf(names.get(i));
                inValue[i] = valueSchema.indexOf(names.get(i));
            }
        }

        /**
         * A format that fixes its own schema (raw: one field) reads its part's fields by position, of
         * the same types, whatever their names.
         */
        static Parts of(Schema fields, Key key, Format valueFormat) {
            List<Field> keyFields = new ArrayList<>();
            for (String name : key.fields()) {
                Field field = fields.field(name).orElseThrow(() -> new OptionException(OWNER + ": key field '" + name
                        + "' is not a field of the records' schema; fields: " + String.join(", ", fields.names())));
                if (keyFields.contains(field)) {
                    throw new OptionException(OWNER + ": key field '" + name + "' is named twice in key-fields");
                }
                keyFields.add(field);
            }
            List<Field> valueFields = key.valueHoldsKey() ? fields.fields()
                    : fields.fields().stream().filter(f -> !keyFields.contains(f)).toList();
            if (valueFields.isEmpty()) {
                throw new OptionException(OWNER + ": every field is a key field, so with value-fields-include "
                        + "except-key the value would hold none; declare the value's fields in the schema too");
            }
            Schema keySchema = Schema.of(keyFields, List.of());
            Schema keyRecordSchema = key.format().factory().schema(key.format().options()).orElse(keySchema);
            if (!sameTypes(keyRecordSchema, keySchema)) {
                throw new OptionException(OWNER + ": key-format '" + key.format().identifier() + "' reads keys as "
                        + keyRecordSchema + ", but key-fields are " + keySchema + "; list key fields of those types");
            }
            Schema valueSchema = Schema.of(valueFields, List.of());
            Schema valueRecordSchema = valueFormat.factory().schema(valueFormat.options()).orElse(valueSchema);
            if (!sameTypes(valueRecordSchema, valueSchema)) {
                throw new OptionException(OWNER + ": format '" + valueFormat.identifier() + "' reads values as "
                        + valueRecordSchema + ", but the value's fields are " + valueSchema + "; declare the schema "
                        + "so that the fields the value holds are of those types");
            }
            Parts parts = new Parts(fields, key, valueSchema, valueRecordSchema, keyRecordSchema);
            try {
                key.format().createDecoder(keyRecordSchema);
            } catch (OptionException e) {
                throw new OptionException(OWNER + ": key-format '" + key.format().identifier() + "': "
                        + e.getMessage());
            }
            return parts;
        }

        /** Same number of fields, of the same types but for nullability: a fixed schema matches by position. */
        private static boolean sameTypes(Schema a, Schema b) {
            if (a.size() != b.size()) {
                return false;
            }
            for (int i = 0; i < a.size(); i++) {
                if (!a.field(i).type().withNullable(true).equals(b.field(i).type().withNullable(true))) {
                    return false;
                }
            }
            return true;
        }

        /** Puts the fields of the rows in {@code values}; {@code key} is null for a record without a key. */
        void fill(Object[] values, Row value, Row key) throws MalformedRecordException {
            for (int i = 0; i < inKey.length; i++) {
                if (inKey[i] < 0 || key == null && valueHoldsKey) {
                    values[i] = value.get(inValue[i]);
                } else {
                    values[i] = key == null ? null : key.get(inKey[i]);
                    if (valueHoldsKey && !Objects.deepEquals(values[i], value.get(inValue[i]))) {
                        // the same field with two values: either would be a guess (FMT-2)
                        throw new MalformedRecordException("key field '" + names.get(i)
                                + "' has one value in the key and another in the value");
                    }
                }
            }
        }
    }

    private static final String OWNER = "source 'kafka'";

    /**
     * The records' fields (the value's, and the key's if any) followed by the metadata fields. Keyed by their primary key, or, when
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
                throw new OptionException(OWNER + ": metadata field '" + m.fieldName()
                        + "' has the name of a field of the records' schema; rename that field");
            }
            if (fields.stream().anyMatch(f -> f.name().equals(m.fieldName()))) {
                throw new OptionException(OWNER + ": metadata field '" + m.fieldName() + "' is asked twice");
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
