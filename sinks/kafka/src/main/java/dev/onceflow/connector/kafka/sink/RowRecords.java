package dev.onceflow.connector.kafka.sink;

import dev.onceflow.spi.factory.OptionException;
import dev.onceflow.spi.format.Format;
import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.row.DataType;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowKind;
import dev.onceflow.spi.row.RowSerializer;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.row.TextValues;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Turns rows into Kafka records: the value is the row in the sink's format, the key is made of
 * the key fields ({@link KeyEncoding}; in {@link KafkaWriteMode#UPSERT} the primary key, a delete
 * a tombstone and an update's before-image no record), and the topic may take fields' values
 * ({@link TopicTemplate}), and the headers may come from a map field, which the value then leaves
 * out. Everything is checked against the input schema when the job is built,
 * so a writer only fails on a value (a null topic field), naming the record. Immutable.
 */
final class RowRecords implements KafkaRecords<Row> {

    private final Schema schema;
    private final Format format;
    private final TopicTemplate topic;
    private final int[] keyPositions;
    private final KeyEncoding keyEncoding;
    private final Schema keySchema;
    private final String idHeader;
    private final int idPosition;
    private final KafkaWriteMode writeMode;
    /** The position of the headers field, or -1. */
    private final int headersPosition;
    /** The fields of the value: the input's, less the headers field. */
    private final Schema valueSchema;

    /**
     * @param keyFields the fields of the record key, none for records without a key
     * @param headersField a map field whose entries are the headers, left out of the value; or
     *     {@code null} for none
     * @param idHeader a header carrying field {@code id}'s text, or {@code null} for none
     * @param writeMode {@code UPSERT}: {@code keyFields} empty or the primary key's fields
     * @throws OptionException with one line naming what does not fit the schema or the format
     */
    RowRecords(String topic, Schema schema, Format format, List<String> keyFields, KeyEncoding keyEncoding,
            String headersField, String idHeader, KafkaWriteMode writeMode) {
        this.schema = Objects.requireNonNull(schema, "schema");
        this.format = Objects.requireNonNull(format, "format");
        this.keyEncoding = Objects.requireNonNull(keyEncoding, "keyEncoding");
        this.writeMode = Objects.requireNonNull(writeMode, "writeMode");
        if (writeMode == KafkaWriteMode.UPSERT) {
            keyFields = upsertKey(schema, format, keyFields);
        }
        try {
            this.topic = TopicTemplate.parse(topic, schema);
        } catch (IllegalArgumentException e) {
            throw new OptionException(e.getMessage());
        }
        this.keyPositions = new int[keyFields.size()];
        List<Field> keys = new ArrayList<>();
        for (int i = 0; i < keyFields.size(); i++) {
            keyPositions[i] = fieldPosition(keyFields.get(i), "option 'key-fields'");
            keys.add(schema.field(keyPositions[i]));
        }
        this.keySchema = keys.isEmpty() ? null : Schema.of(keys, List.of());
        if (keyEncoding == KeyEncoding.TEXT && keys.size() > 1) {
            throw new OptionException((writeMode == KafkaWriteMode.UPSERT ? "the primary key has " : "option "
                    + "'key-fields' names ") + keys.size() + " fields, and key-encoding text writes one; use key-encoding: format to encode them together in the sink's format");
        }
        if (keyEncoding == KeyEncoding.TEXT && keys.size() == 1 && keys.get(0).type().isNested()) {
            throw new OptionException("key field '" + keys.get(0).name() + "' is a "
                    + keys.get(0).type().kind().typeName() + ", which has no text; use key-encoding: format");
        }
        this.idHeader = idHeader;
        this.idPosition = idHeader == null ? -1 : fieldPosition("id", "option 'id-header'");
        this.headersPosition = headersField == null ? -1 : fieldPosition(headersField, "option 'headers-field'");
        if (headersPosition >= 0) {
            DataType type = schema.field(headersPosition).type();
            if (type.kind() != DataType.Kind.MAP || type.keyType().kind() != DataType.Kind.STRING
                    || (type.valueType().kind() != DataType.Kind.BYTES && type.valueType().kind() != DataType.Kind.STRING)) {
                throw new OptionException("option 'headers-field' needs a field of type map<string, bytes> or "
                        + "map<string, string>; '" + headersField + "' is a " + type);
            }
            if (IntStream.of(keyPositions).anyMatch(p -> p == headersPosition)) {
                throw new OptionException("field '" + headersField + "' is both the headers and part of the key");
            }
            List<Field> values = new ArrayList<>(schema.fields());
            values.remove(headersPosition);
            this.valueSchema = Schema.of(values, schema.primaryKey().contains(headersField) ? List.of()
                    : schema.primaryKey());
        } else {
            this.valueSchema = schema;
        }
        // FMT-4: a field the format cannot write is found now, not in a writer
        format.createEncoder(valueSchema);
        if (keySchema != null && keyEncoding == KeyEncoding.FORMAT) {
            format.createEncoder(keySchema);
        }
    }

    /**
     * The record key of upsert mode: the primary key, so that a compacted topic keeps one record
     * per row (CHG-4). Another key would spread one row's changes over keys.
     */
    private static List<String> upsertKey(Schema schema, Format format, List<String> keyFields) {
        List<String> primaryKey = schema.primaryKey();
        if (primaryKey.isEmpty()) {
            throw new OptionException("write-mode upsert keys each record by the input's primary key, and the input "
                    + "has none (fields: " + String.join(", ", schema.names()) + "); declare a primary-key in the "
                    + "source's schema, or use write-mode append");
        }
        if (!keyFields.isEmpty() && !keyFields.equals(primaryKey)) {
            throw new OptionException("write-mode upsert keys each record by the primary key (" + String.join(", ",
                    primaryKey) + "), and option 'key-fields' says " + String.join(", ", keyFields)
                    + "; remove key-fields");
        }
        if (format.producesChanges()) {
            throw new OptionException("write-mode upsert writes each row's content as the record value, and format '"
                    + format.identifier() + "' writes change events; use a format such as json, or write-mode append");
        }
        return primaryKey;
    }

    private int fieldPosition(String name, String what) {
        int position = schema.indexOf(name);
        if (position < 0) {
            throw new OptionException(what + " needs field '" + name + "', which the input does not have (fields: "
                    + String.join(", ", schema.names()) + ")");
        }
        if (what.equals("option 'id-header'") && schema.field(position).type().isNested()) {
            throw new OptionException(what + " needs a scalar field 'id'; it is a "
                    + schema.field(position).type().kind().typeName());
        }
        return position;
    }

    @Override
    public String topic() {
        return topic.toString();
    }

    @Override
    public Converter<Row> converter() {
        RowEncoder values = format.createEncoder(valueSchema);
        RowEncoder keys = keySchema != null && keyEncoding == KeyEncoding.FORMAT ? format.createEncoder(keySchema) : null;
        return row -> {
            if (row.kind() != RowKind.INSERT && writeMode == KafkaWriteMode.APPEND) {
                // CHG-3: appended, an update is a duplicate and a delete a row that should be gone
                throw new IllegalArgumentException("sink 'kafka' appends rows, and got a " + row.kind() + " "
                        + describe(row) + "; use write-mode upsert");
            }
            return switch (row.kind()) {
                // CHG-4: the UPDATE_AFTER of the same key, next, replaces the row
                case UPDATE_BEFORE -> null;
                // a tombstone: a reader forgets the key, and compaction drops its earlier records
                case DELETE -> record(row, keys, null);
                case INSERT, UPDATE_AFTER -> record(row, keys, values.encode(headersPosition < 0 ? row : value(row)));
            };
        };
    }

    /** The record of {@code row}; {@code value} null for a tombstone. */
    private ProducerRecord<byte[], byte[]> record(Row row, RowEncoder keys, byte[] value) {
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic.resolve(row, () -> describe(row)),
                key(row, keys), value);
        if (headersPosition >= 0 && row.get(headersPosition) != null) {
            DataType valueType = schema.field(headersPosition).type().valueType();
            ((Map<?, ?>) row.get(headersPosition)).forEach((name, header) -> record.headers().add((String) name,
                    header == null ? null : text(valueType, header)));
        }
        if (idHeader != null) {
            Object id = row.get(idPosition);
            record.headers().add(idHeader, id == null ? null
                    : text(schema.field(idPosition).type(), id));
        }
        return record;
    }

    /** The row less its headers field. */
    private Row value(Row row) {
        Object[] values = new Object[valueSchema.size()];
        for (int i = 0, j = 0; i < schema.size(); i++) {
            if (i != headersPosition) {
                values[j++] = row.get(i);
            }
        }
        return Row.of(valueSchema, values);
    }

    private byte[] key(Row row, RowEncoder keys) {
        if (keyPositions.length == 0) {
            return null;
        }
        if (keys != null) {
            Object[] values = new Object[keyPositions.length];
            for (int i = 0; i < values.length; i++) {
                values[i] = row.get(keyPositions[i]);
            }
            return keys.encode(Row.of(keySchema, values));
        }
        Object value = row.get(keyPositions[0]);
        return value == null ? null : text(keySchema.field(0).type(), value);
    }

    private static byte[] text(DataType type, Object value) {
        return type.kind() == DataType.Kind.BYTES ? ((byte[]) value).clone()
                : TextValues.format(type, value).getBytes(StandardCharsets.UTF_8);
    }

    /** How errors name a record: by its key fields' values where it has them. */
    private String describe(Row row) {
        if (keyPositions.length == 0) {
            return "record " + TextValues.abbreviate(row.toString());
        }
        StringBuilder name = new StringBuilder("record with key");
        for (int position : keyPositions) {
            Object value = row.get(position);
            name.append(' ').append(schema.field(position).name()).append('=').append(value == null ? "null"
                    : TextValues.abbreviate(String.valueOf(value)));
        }
        return name.toString();
    }

    @Override
    public SimpleVersionedSerializer<Row> serializer() {
        return RowSerializer.of(schema);
    }
}
