package dev.onceflow.connector.kafka.sink;

import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The marker records of the write-ahead mode. One key per sink and (former) subtask,
 * {@code <prefix>-<subtask>}, whose value is the highest checkpoint id whose segment that subtask's
 * records were written for: segments of one subtask are written in checkpoint order, so the
 * newest marker's id says which were written, and a compacted control topic keeps one record per
 * key. A marker {@value ControlTopicCommitter#NOTHING_SENT} starts a new history (EO-6).
 */
final class ControlMarkers {

    private ControlMarkers() {
    }

    static ProducerRecord<byte[], byte[]> marker(String controlTopic, String prefix, int subtask, long checkpointId) {
        return new ProducerRecord<>(controlTopic, key(prefix, subtask).getBytes(StandardCharsets.UTF_8),
                Long.toString(checkpointId).getBytes(StandardCharsets.UTF_8));
    }

    static String key(String prefix, int subtask) {
        return prefix + "-" + subtask;
    }

    /** The subtask a marker key names, or empty if the key is not one of this sink's. */
    static OptionalInt subtaskOf(String prefix, byte[] key) {
        if (key == null) {
            return OptionalInt.empty();
        }
        String text = new String(key, StandardCharsets.UTF_8);
        if (!text.startsWith(prefix + "-")) {
            return OptionalInt.empty();
        }
        String rest = text.substring(prefix.length() + 1);
        if (rest.isEmpty() || rest.length() > 9 || !rest.chars().allMatch(Character::isDigit)) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(Integer.parseInt(rest));
    }

    /**
     * The checkpoint id a marker holds.
     *
     * @throws IllegalStateException naming the topic and offset when the value is not a checkpoint id
     */
    static long checkpointId(byte[] value, String where) {
        String text = value == null ? "" : new String(value, StandardCharsets.UTF_8);
        try {
            long id = Long.parseLong(text);
            if (id >= 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalStateException("corrupt marker at " + where + ": '" + text + "' is not a checkpoint id");
    }
}
