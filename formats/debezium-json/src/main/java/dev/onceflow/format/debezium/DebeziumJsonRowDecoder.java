package dev.onceflow.format.debezium;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceflow.spi.format.MalformedRecordException;
import dev.onceflow.spi.format.RowDecoder;
import dev.onceflow.spi.row.Field;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.RowKind;
import dev.onceflow.spi.row.Schema;
import dev.onceflow.spi.row.TextValues;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Reads one Debezium change event into the rows it says (FMT-8): {@code c} and {@code r} (a
 * snapshot read) an insert of {@code after}; {@code u} the update's old content, where the event
 * has it, and its new content; {@code d} a delete of {@code before}; a tombstone nothing. The
 * {@code before} and {@code after} objects are decoded by the json format, so values read as
 * there; with {@code schema-include}, Debezium's typed values are first turned into the text the
 * json format reads, as the event's schema names them ({@link ConnectTypes}).
 */
final class DebeziumJsonRowDecoder implements RowDecoder {

    /**
     * Numbers stay exact (decimals as BigDecimal, trailing zeros kept) and are written back as
     * BigDecimal writes them, not in plain digits, so a fraction stays a fraction to the json format
     * and {@code 1e100000} stays a few characters; a member given twice is refused, as the json
     * format refuses it, not silently the last.
     */
    static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private final Schema schema;
    private final RowDecoder rows;
    private final boolean schemaIncluded;

    DebeziumJsonRowDecoder(Schema schema, RowDecoder rows, boolean schemaIncluded) {
        this.schema = schema;
        this.rows = rows;
        this.schemaIncluded = schemaIncluded;
    }

    /** The one row of an insert or delete; an update with its old content is two rows, for {@link #decodeRows}. */
    @Override
    public Row decode(byte[] bytes, int offset, int length) throws MalformedRecordException {
        List<Row> decoded = decodeRows(bytes, offset, length);
        if (decoded.size() != 1) {
            throw new MalformedRecordException("the change event holds " + decoded.size() + " rows, and this reader "
                    + "takes one per record");
        }
        return decoded.get(0);
    }

    @Override
    public List<Row> decodeRows(byte[] bytes, int offset, int length) throws MalformedRecordException {
        JsonNode root;
        try {
            root = MAPPER.readTree(bytes, offset, length);
        } catch (JsonProcessingException e) {
            throw new MalformedRecordException("not valid JSON: " + e.getOriginalMessage() + " at column "
                    + e.getLocation().getColumnNr());
        } catch (IOException e) {
            throw new MalformedRecordException("not valid JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new MalformedRecordException("expected a change event (a JSON object), found "
                    + (root == null || root.isMissingNode() ? "the end of the record" : root.getNodeType()));
        }
        boolean wrapped = root.size() == 2 && root.has("schema") && root.has("payload");
        if (wrapped != schemaIncluded) {
            throw new MalformedRecordException(wrapped
                    ? "the event is in a {schema, payload} wrapper; set the format's schema-include: true"
                    : "the event is not in a {schema, payload} wrapper, which schema-include: true expects");
        }
        JsonNode event = wrapped ? root.get("payload") : root;
        if (!event.isObject()) {
            throw new MalformedRecordException("the payload is not a change event (a JSON object)");
        }
        Map<String, ConnectTypes.Named> named = wrapped ? ConnectTypes.namedFields(root.get("schema")) : Map.of();
        JsonNode op = event.get("op");
        if (op == null || !op.isTextual()) {
            throw new MalformedRecordException("member 'op' is missing or not a string: not a Debezium change event");
        }
        return switch (op.asText()) {
            case "c", "r" -> List.of(row(event, "after", named));
            case "u" -> event.hasNonNull("before")
                    ? List.of(row(event, "before", named).withKind(RowKind.UPDATE_BEFORE),
                            row(event, "after", named).withKind(RowKind.UPDATE_AFTER))
                    // REPLICA IDENTITY DEFAULT: no old content; the upsert of the new content says it all
                    : List.of(row(event, "after", named).withKind(RowKind.UPDATE_AFTER));
            case "d" -> List.of(row(event, "before", named).withKind(RowKind.DELETE));
            case "t" -> throw new MalformedRecordException("op 't' (a truncate) empties a whole table, which no "
                    + "change of a row by key can say");
            default -> throw new MalformedRecordException("op '" + TextValues.abbreviate(op.asText())
                    + "' is not one of c, r, u, d");
        };
    }

    /** A tombstone follows a delete so that compaction can drop the key; the delete already said it. */
    @Override
    public List<Row> decodeAbsent() {
        return List.of();
    }

    private Row row(JsonNode event, String member, Map<String, ConnectTypes.Named> named)
            throws MalformedRecordException {
        JsonNode node = event.get(member);
        if (node == null || !node.isObject()) {
            throw new MalformedRecordException("op '" + event.get("op").asText() + "' needs member '" + member
                    + "' to be an object, and it is " + (node == null ? "missing" : node.getNodeType()));
        }
        if (!named.isEmpty()) {
            node = asJsonText((ObjectNode) node, named);
        }
        try {
            return rows.decode(MAPPER.writeValueAsBytes(node));
        } catch (MalformedRecordException e) {
            throw new MalformedRecordException(member + ": " + e.getMessage(), e);
        } catch (JsonProcessingException e) {
            // writing a tree read a moment ago does not fail; a failure here is a bug, not bad input
            throw new IllegalStateException(e);
        }
    }

    /** A copy of {@code row} whose typed values of the schema's fields are in the json format's text. */
    private ObjectNode asJsonText(ObjectNode row, Map<String, ConnectTypes.Named> named)
            throws MalformedRecordException {
        ObjectNode copy = row.deepCopy();
        for (Field field : schema.fields()) {
            ConnectTypes.Named type = named.get(field.name());
            JsonNode value = copy.get(field.name());
            if (type == null || value == null || value.isNull()) {
                continue;
            }
            try {
                copy.put(field.name(), ConnectTypes.asText(type, value, field.type()));
            } catch (IllegalArgumentException e) {
                throw new MalformedRecordException("field '" + field.name() + "': " + e.getMessage());
            }
        }
        return copy;
    }
}
