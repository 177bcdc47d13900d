package dev.onceflow.format.debezium;

import dev.onceflow.spi.format.RowEncoder;
import dev.onceflow.spi.row.Row;
import dev.onceflow.spi.row.Schema;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Writes each row as a Debezium change event {@code {"before":...,"after":...,"op":"c"}}, its rows
 * json format objects: an insert {@code c} with {@code after}, an update {@code u} with
 * {@code after} and, as {@code before}, the {@code UPDATE_BEFORE} of the same key right before it
 * (else null), a delete {@code d} with {@code before}. An {@code UPDATE_BEFORE} becomes no record
 * of its own (FMT-8): it is held for the update after it. No {@code source} or {@code ts_ms}: they
 * would say where and when the event was written, and a replay must write the same bytes (FMT-3).
 */
final class DebeziumJsonRowEncoder implements RowEncoder {

    private static final byte[] BEFORE = bytes("{\"before\":");
    private static final byte[] AFTER = bytes(",\"after\":");
    private static final byte[] NULL = bytes("null");

    private final int[] key;
    private final RowEncoder rows;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(256);
    /** The UPDATE_BEFORE just encoded, for the UPDATE_AFTER that follows it; null otherwise. */
    private Row heldBefore;

    DebeziumJsonRowEncoder(Schema schema, RowEncoder rows) {
        this.key = schema.primaryKeyPositions();
        this.rows = rows;
    }

    @Override
    public byte[] encode(Row row) {
        Row before = heldBefore;
        heldBefore = null;
        return switch (row.kind()) {
            case INSERT -> event(null, row, "c");
            case UPDATE_BEFORE -> {
                heldBefore = row;
                yield null;
            }
            // an UPDATE_BEFORE of another key is not this update's old content; upsert readers need none (CHG-4)
            case UPDATE_AFTER -> event(before != null && sameKey(before, row) ? before : null, row, "u");
            case DELETE -> event(row, null, "d");
        };
    }

    private boolean sameKey(Row a, Row b) {
        for (int position : key) {
            if (!Objects.deepEquals(a.get(position), b.get(position))) {
                return false;
            }
        }
        return true;
    }

    private byte[] event(Row before, Row after, String op) {
        buffer.reset();
        buffer.writeBytes(BEFORE);
        buffer.writeBytes(before == null ? NULL : rows.encode(before));
        buffer.writeBytes(AFTER);
        buffer.writeBytes(after == null ? NULL : rows.encode(after));
        buffer.writeBytes(bytes(",\"op\":\"" + op + "\"}"));
        return buffer.toByteArray();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
